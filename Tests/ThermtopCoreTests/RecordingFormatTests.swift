import Testing
import Thermtop

private let header = RecordingHeader(thermtopVersion: "0.1.0", host: "box", kernel: "Linux 6.1.0 x86_64",
                                     startTime: "2026-11-23T12:00:00Z", delaySeconds: 1, root: "/sys")

private func frame() -> RecordedAccesses {
    var a = RecordedAccesses()
    a.reads["class/thermal/thermal_zone0/temp"] = .text("45000\n")
    a.reads["class/thermal/thermal_zone0/type"] = .text("x86_pkg_temp\n")
    a.reads["class/hwmon/hwmon3/temp1_input"] = .failed(reason: .ioError, detail: "EIO")
    a.lists["class/thermal"] = ["thermal_zone0"]
    a.lists["class/power_supply"] = .some(nil)
    a.exists["firmware/acpi/platform_profile"] = false
    a.isDirectory["class/thermal/thermal_zone0"] = true
    a.resolved["class/hwmon/hwmon1/device"] = "devices/platform/coretemp.0"
    a.resolved["class/hwmon/hwmon9/device"] = .some(nil)
    return a
}

private func text(_ lines: [String], trailingNewline: Bool = true) -> [UInt8] {
    Array((lines.joined(separator: "\n") + (trailingNewline ? "\n" : "")).utf8)
}

private func good() -> [String] {
    var change = RecordedAccesses()
    change.reads["class/thermal/thermal_zone0/temp"] = .text("46000\n")
    return [
        RecordingFormat.headerLine(header),
        RecordingFormat.sampleLine(RecordedSample(time: 0, changes: frame()), frame: true),
        RecordingFormat.sampleLine(RecordedSample(time: 1.002, changes: change), frame: false),
        RecordingFormat.sampleLine(RecordedSample(time: 2.004, changes: RecordedAccesses()), frame: false),
    ]
}

private func error(_ bytes: [UInt8]) -> RecordingError? {
    if case .failure(let e) = Recording.parse(bytes) { return e }
    return nil
}

@Suite("Recording format")
struct RecordingFormatTests {
    @Test func encodedRecordingDecodesToTheSameAccesses() throws {
        let r = try Recording.parse(text(good())).get()
        #expect(r.header == header)
        #expect(r.samples.count == 3)
        #expect(r.samples[0].changes == frame())
        #expect(r.samples[1].time == 1.002)
        #expect(r.samples[1].changes.reads == ["class/thermal/thermal_zone0/temp": .text("46000\n")])
        #expect(r.samples[2].changes.isEmpty)
        #expect(r.cutOffLine == nil)
        #expect(r.duration == 2.004)
    }

    @Test func headerLineIsTheDocumentedObject() {
        let line = RecordingFormat.headerLine(header)
        #expect(line == #"{"schema":"thermtop.recording/1","thermtop_version":"0.1.0","host":"box","kernel":"Linux 6.1.0 x86_64","start_time":"2026-11-23T12:00:00Z","delay_seconds":1,"root":"/sys"}"#)
    }

    @Test func changesAreOnlyWhatDiffers() {
        var later = frame()
        later.reads["class/thermal/thermal_zone0/temp"] = .text("47000\n")
        later.lists["class/power_supply"] = ["BAT0"]
        let d = frame().changes(to: later)
        #expect(d.reads == ["class/thermal/thermal_zone0/temp": .text("47000\n")])
        #expect(d.lists.count == 1)
        #expect(d.exists.isEmpty && d.isDirectory.isEmpty)
        var state = frame()
        state.apply(d)
        #expect(state == later)
    }

    @Test func aLineCutOffByACrashIsDroppedAndTheRestReplays() throws {
        var lines = good()
        let last = lines.removeLast()
        lines.append(String(last.prefix(8)))
        let r = try Recording.parse(text(lines, trailingNewline: false)).get()
        #expect(r.samples.count == 2)
        #expect(r.cutOffLine == 4)
    }

    @Test func aWholeLastLineWithoutNewlineIsKept() throws {
        let r = try Recording.parse(text(good(), trailingNewline: false)).get()
        #expect(r.samples.count == 3)
        #expect(r.cutOffLine == nil)
    }

    @Test func wrongSchemaNamesLineOne() {
        var lines = good()
        lines[0] = lines[0].replacingOccurrences(of: "thermtop.recording/1", with: "thermtop.status/1")
        #expect(error(text(lines))?.description == #"line 1: schema "thermtop.status/1" is not thermtop.recording/1: not a thermtop recording"#)
        lines[0] = lines[0].replacingOccurrences(of: "thermtop.status/1", with: "thermtop.recording/2")
        #expect(error(text(lines))?.line == 1)
        #expect(error(text(lines))?.message.contains("another thermtop version") == true)
    }

    @Test func garbageInTheMiddleNamesTheLine() {
        var lines = good()
        lines.insert("hello world", at: 2)
        let e = error(text(lines))
        #expect(e?.line == 3)
        #expect(e?.message.hasPrefix("not JSON") == true)
    }

    @Test func timesGoingBackwardsNameTheLine() {
        var lines = good()
        lines.append(#"{"t":0.5}"#)
        #expect(error(text(lines))?.description == "line 5: time 0.500 s goes backwards (the line before is at 2.004 s)")
    }

    @Test func missingFrameEmptyFileAndHeaderOnlyAreClearErrors() {
        #expect(error([])?.description == "empty file: no thermtop.recording/1 header")
        #expect(error(text([good()[0]]))?.description == "line 2: no samples after the header (the recording stopped before its first sample)")
        #expect(error(text([good()[0], good()[2]]))?.line == 2)
        #expect(error(text([good()[0], #"[1,2]"#]))?.description == "line 2: not a JSON object")
    }

    @Test func wrongTypesInsideASampleNameTheLineAndPath() {
        var lines = good()
        lines.append(#"{"t":3,"read":{"class/x":42}}"#)
        #expect(error(text(lines))?.description == "line 5: read class/x: expected text or an issue")
        lines[4] = #"{"t":3,"read":{"class/x":{"issue":"melted"}}}"#
        #expect(error(text(lines))?.description == "line 5: read class/x: unknown issue melted")
    }

    @Test func deepNestingIsAnErrorNotAStackOverflow() {
        var lines = good()
        lines.append(String(repeating: "[", count: 100_000))
        #expect(error(text(lines))?.line == 5)
    }

    @Test func stringsWithEscapesAndUnicodeRoundTrip() throws {
        var a = frame()
        a.reads["class/thermal/thermal_zone9/type"] = .text("evil\u{1b}[2J \"q\" \\ é 🌡\n")
        let lines = [RecordingFormat.headerLine(header), RecordingFormat.sampleLine(RecordedSample(time: 0, changes: a), frame: true)]
        let r = try Recording.parse(text(lines)).get()
        #expect(r.samples[0].changes == a)
    }

    @Test func jsonParserRejectsWhatRFC8259Rejects() {
        for bad in ["01", "1.", "-", "\"\\x\"", "[1,]", "{\"a\":1,}", "tru", "\"a\nb\"", "1 2", "nan"] {
            #expect((try? JSONParser.parse(Array(bad.utf8)).get()) == nil, "accepted \(bad)")
        }
        #expect((try? JSONParser.parse(Array(#"{"a":[1,-2.5e3,true,null,"\u00e9\ud83c\udf21"]}"#.utf8)).get())
                == .object([("a", .array([.number(1), .number(-2500), .bool(true), .null, .string("é🌡")]))]))
    }
}
