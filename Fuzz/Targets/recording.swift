// Fuzz target `recording`: a `thermtop.recording/1` file (any bytes: JSON lines, garbage, cut
// lines, CRLF, huge numbers, escapes in host names and values) through Recording.parse and the
// line-by-line RecordingDecoder, which must agree; a parsed recording re-encodes to the same
// recording, and replays through the live readers (ReplaySource → SysfsSource) into a status
// printed as text and JSON without a trap or a raw control byte.
import ThermtopCore
import ThermtopLinux

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecording(_ data: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    let parsed = Recording.parse(bytes)

    // The streaming decoder (what `thermtop status --replay` uses on a file) agrees with parse.
    var decoder = RecordingDecoder()
    let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
    var streamed: Result<Recording, RecordingError>
    do throws(RecordingError) {
        for (i, line) in lines.enumerated() {
            if i == lines.count - 1 {
                if !line.isEmpty { try decoder.feedLast(line, line: i + 1) }
            } else {
                try decoder.feed(line, line: i + 1)
            }
        }
        streamed = decoder.finish()
    } catch {
        streamed = .failure(error)
    }
    if streamed != parsed { fail("decoder and parse disagree: \(streamed) vs \(parsed)") }

    guard case .success(let recording) = parsed else {
        if case .failure(let e) = parsed { requireInert(Format.clean(e.description), "error") }
        return 0
    }
    if recording.samples.isEmpty { fail("a recording without samples") }
    for (a, b) in zip(recording.samples, recording.samples.dropFirst()) where b.time < a.time { fail("time goes backwards") }

    // Re-encoded (as the recorder writes it), it reads back the same; times are written to the
    // millisecond, so they come back within half of one.
    var text = RecordingFormat.headerLine(recording.header) + "\n"
    for (i, s) in recording.samples.enumerated() { text += RecordingFormat.sampleLine(s, frame: i == 0) + "\n" }
    switch Recording.parse(Array(text.utf8)) {
    case .failure(let e):
        // The one known exception: a time just under the 1e9 s limit rounds up onto it.
        if !recording.samples.contains(where: { $0.time >= 1e9 - 0.001 }) { fail("re-encoded recording does not parse: \(e)\n\(text.prefix(500))") }
    case .success(let again):
        if again.header != recording.header { fail("header changed: \(recording.header) → \(again.header)") }
        if again.samples.count != recording.samples.count { fail("sample count changed") }
        for (a, b) in zip(recording.samples, again.samples) {
            if a.changes != b.changes { fail("accesses changed at t=\(a.time)") }
            if abs(a.time - b.time) > 0.0005 + a.time * 1e-12 { fail("time \(a.time) came back as \(b.time)") }
        }
    }

    // Replayed through the live readers, sample by sample (the first few).
    let source = ReplaySource(recording: recording, fileLabel: "fuzz.ndjson")
    var memory = ClassifierMemory()
    let config = ThermalConfig()
    for i in 0..<min(recording.samples.count, 6) {
        source.move(to: i)
        let snap = source.sample(at: source.time)
        let assessment = ThermalClassifier.assess(snap, config: config, memory: &memory)
        for s in assessment.sensors where !s.ignored && !s.sensor.isFolded && s.sensor.celsius != nil && s.level > assessment.state {
            fail("sensor \(s.id) at \(s.level) above device state \(assessment.state)")
        }
        let status = MonitorStatus(snapshot: snap, assessment: assessment,
                                   lowPowerAssessment: LowPowerAssessment.assess(snap, config: config),
                                   overrides: .none, sourceLabel: source.label, sourceIsSimulated: false)
        requireInert(ThermalStatusReport.text(status), "status text")
        requireInert(ThermalStatusReport.json(status, version: "fuzz").serialized(), "status JSON")
    }
    return 0
}
