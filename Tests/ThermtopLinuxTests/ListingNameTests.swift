import Testing
@testable import ThermtopLinux

/// The byte-level reading of listing names gives what the Character rules give.
struct ListingNameTests {
    func split(_ name: String, after prefix: StaticString) -> ListingName.Split {
        var n = name
        return n.withUTF8 { ListingName.split($0, after: prefix) }
    }

    @Test func splitFindsPrefixDigitsAndRest() {
        #expect(split("temp12_input", after: "temp") == .split(number: 12, rest: 6))
        #expect(split("fan1_input", after: "temp") == .noPrefix)
        #expect(split("tem", after: "temp") == .noPrefix)
        #expect(split("temp_input", after: "temp") == .split(number: nil, rest: 4))
        #expect(split("temp99999999999999999999_input", after: "temp") == .split(number: nil, rest: 24))
        // Non-ASCII names are left to the Character rules.
        #expect(split("temp1\u{301}_input", after: "temp") == .notASCII)
        var name = "temp3_input"
        name.withUTF8 { b in
            #expect(ListingName.rest(b, from: 5, is: "_input"))
            #expect(!ListingName.rest(b, from: 5, is: "_inpu"))
            #expect(ListingName.rest(b, from: 5, endsWith: "put"))
            #expect(!ListingName.rest(b, from: 10, endsWith: "put"))
        }
    }

    @Test func tripIndexMatchesTheCharacterRule() {
        func old(_ name: String) -> Int? {
            guard name.hasPrefix("trip_point_"), name.hasSuffix("_type") || name.hasSuffix("_temp") else { return nil }
            return Int(name.dropFirst("trip_point_".count).prefix { $0.isNumber })
        }
        let names = ["trip_point_0_type", "trip_point_12_temp", "trip_point_3_hyst", "trip_point__type",
                     "trip_point_temp", "trip_point_3abc_temp", "trip_point_99999999999999999999_temp",
                     "trip_point_1\u{661}_temp", "trip_point_\u{661}_type", "trip_point_1\u{301}_temp",
                     "trip_point_7_type\u{301}", "temp", "policy", "", "trip_point_", "trip_point_5_type_temp"]
        for n in names { #expect(ZoneLayout.tripIndex(n) == old(n), "\(n)") }
        #expect(ZoneLayout.tripIndex("trip_point_12_temp") == 12)
    }

    @Test func hwmonIndicesMatchTheCharacterRule() {
        func old(_ files: [String], prefix: String, suffixes: [String]) -> [Int] {
            var out: [Int] = []
            for name in files where name.hasPrefix(prefix) {
                let rest = name.dropFirst(prefix.count)
                let digits = rest.prefix { $0.isASCII && $0.isNumber }
                guard !digits.isEmpty, let n = Int(digits) else { continue }
                if suffixes.contains(String(rest.dropFirst(digits.count))) { out.append(n) }
            }
            return sortedUnique(out)
        }
        let files = ["temp1_input", "temp10_input", "temp2_input", "temp2_label", "temp_input", "temp3\u{301}_input",
                     "tempé4_input", "temp99999999999999999999_input", "temp\u{661}_input", "pwm1", "pwm2_enable",
                     "fan3_input", "power1_average", "power2_input", "power3_cap", "name", "temp5_input\u{301}"]
        let listing = Listing(names: files)
        #expect(HwmonLayout.indices(listing, prefix: "temp", suffix: "_input") == old(files, prefix: "temp", suffixes: ["_input"]))
        #expect(HwmonLayout.indices(listing, prefix: "pwm", suffix: "") == old(files, prefix: "pwm", suffixes: [""]))
        #expect(HwmonLayout.indices(listing, prefix: "fan", suffix: "_input") == old(files, prefix: "fan", suffixes: ["_input"]))
        #expect(HwmonLayout.indices(listing, prefix: "power", suffix: "_average", or: "_input")
            == old(files, prefix: "power", suffixes: ["_average", "_input"]))
        #expect(HwmonLayout.indices(listing, prefix: "temp", suffix: "_input") == [1, 2, 10])
    }

    @Test func stemKindIsTheLettersBeforeTheFirstDigit() {
        #expect(ListingName.stemKind("in0") == "in")
        #expect(ListingName.stemKind("curr12") == "curr")
        #expect(ListingName.stemKind("humidity") == "humidity")
        #expect(ListingName.stemKind("7x") == "")
        #expect(ListingName.stemKind("énergie1") == nil)
    }

    @Test("a listed folder answers by name exactly what it holds, found by search in its natural order")
    func listedNamesFindEveryNameAndNothingElse() {
        let names = ["temp1_input", "temp1_crit_hyst", "temp1_crit", "temp10_input", "temp2_input", "temp02_input",
                     "name", "power", "fan1_input", "uevent", "é", "e\u{301}x", "pwm1", "pwm1_enable"]
        let listed = Listing(names: names)
        for n in names { #expect(listed.contains(n), "\(n) is listed") }
        for n in ["temp1", "temp1_crit_alarm", "temp3_input", "temp100_input", "temp0_input", "pwm", "pwm2", "",
                  "zzz", "e", "temp1_input "] {
            #expect(!listed.contains(n), "\(n) is not listed")
        }
        #expect(!Listing.none.contains("name"))
        #expect(listed.names == names.sorted(by: naturalLess))
    }

    @Test("a listing's prefix and suffix tests say what String.hasPrefix and hasSuffix say, combining marks included")
    func prefixAndSuffixAsStrings() {
        let names = ["temp1_input", "temp\u{301}1_input", "te\u{301}mp1_input", "temp1_input\u{301}", "temp1_inpu\u{301}t",
                     "énergie_now", "energy_now", "_input", "temp", "t"]
        let listing = Listing(names: names)
        for i in 0..<listing.count {
            let name = listing.name(i)
            #expect(listing.name(i, hasPrefix: "temp") == name.hasPrefix("temp"), "\(name)")
            #expect(listing.name(i, hasSuffix: "_input") == name.hasSuffix("_input"), "\(name)")
            #expect(listing.name(i, hasPrefix: "energy_") == name.hasPrefix("energy_"), "\(name)")
        }
        #expect(HwmonLayout.hasTempInput(listing))
        #expect(!HwmonLayout.hasTempInput(Listing(names: ["temp\u{301}1_input", "temp1_max", "fan1_input"])))
    }

    @Test("a small listing (kept in the kernel's order) and a large one (sorted) answer alike: natural order out, every name found, hidden ones left out")
    func smallAndLargeListings() {
        for n in [3, Listing.scannedUpTo, Listing.scannedUpTo + 1, 300] {
            // A made-up kernel order: neither sorted nor reversed.
            let names = (0..<n).map { "temp\(($0 * 7) % n + 1)_input" } + [".hidden", "..", "."]
            let listed = Listing(names: names)
            let visible = names.filter { !$0.hasPrefix(".") }
            #expect(listed.count == visible.count)
            #expect(listed.names == visible.sorted(by: naturalLess), "\(n)")
            for name in visible { #expect(listed.contains(name), "\(n): \(name)") }
            #expect(!listed.contains(".hidden") && !listed.contains("temp0_input") && !listed.contains("temp\(n + 1)_input"))
            #expect(listed.names(withPrefix: "temp1") == visible.filter { $0.hasPrefix("temp1") }.sorted(by: naturalLess))
        }
    }

    @Test("natural order decided past a shared beginning: digit runs that reach the first difference compare as numbers")
    func naturalOrderAfterASharedBeginning() {
        #expect(naturalLess("temp1_crit", "temp1_crit_hyst"), "a beginning comes first")
        #expect(!naturalLess("temp1_crit_hyst", "temp1_crit"))
        #expect(naturalLess("temp9_input", "temp10_input"))
        #expect(naturalLess("temp1x", "temp12"), "the run 1 against 12, not x against 2")
        #expect(!naturalLess("temp12", "temp1x"))
        #expect(naturalLess("zone07b", "zone007a"), "same number: the shorter spelling decides before the rest")
        #expect(naturalLess("zone07a", "zone07b"), "same number and spelling: then the rest")
        #expect(naturalLess("zone7", "zone07"), "same number: the shorter spelling first")
        #expect(!naturalLess("same", "same"))
    }
}
