import Foundation
import Testing
import ThermtopCore
import ThermtopLinux

/// Issue 38 item 4: one rule orders every sensor's limits, on every capture.
@Suite struct LimitOrderTests {
    static let fixtures: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: Fixture.directory.path)) ?? [])
        .filter { FileManager.default.fileExists(atPath: Fixture.path($0) + "/class") }
        .sorted()

    @Test("every sensor of every fixture and real capture has fair < serious < critical, each rule naming the limits it came from",
          arguments: fixtures)
    func limitsOrdered(_ name: String) {
        let (_, snap) = Fixture.sample(name)
        let (assessment, _) = Fixture.assess(snap)
        for a in assessment.sensors {
            let t = a.thresholds
            #expect(t.fair.celsius < t.serious.celsius && t.serious.celsius < t.critical.celsius,
                    "\(name) \(a.sensor.displayName): fair \(t.fair.label), serious \(t.serious.label), critical \(t.critical.label)")
            // A derived threshold's rule reproduces its value: `X − 5.0 °C` is X − 5.
            if let r = t.critical.rule.range(of: #"^[a-z ]+ ([0-9.]+) °C − ([0-9.]+) °C$"#, options: .regularExpression),
               r.lowerBound == t.critical.rule.startIndex {
                let numbers = t.critical.rule.split(separator: " ").compactMap { Double($0) }
                if numbers.count == 2 {
                    #expect(abs(numbers[0] - numbers[1] - t.critical.celsius) < 0.11,
                            "\(name) \(a.sensor.displayName): critical \(t.critical.celsius) but rule \(t.critical.rule)")
                }
            }
        }
    }
}
