import Foundation
import Testing

@Suite("status --json forecast")
struct ForecastStatusTests {
    @Test func oneShotStatusReportsTheFiveForecastFieldsWithNotEnoughHistory() throws {
        let r = try Thermtop.status("intel-laptop", ["--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try r.json()
        #expect(json["schema"] as? String == "thermtop.status/1")
        let f = try #require(json["forecast"] as? [String: Any])
        for key in ["next_state", "seconds", "headroom", "headroom_in_10s", "method"] {
            #expect(f.keys.contains(key), "missing forecast.\(key)")
        }
        #expect(f["next_state"] is NSNull)
        #expect(f["seconds"] is NSNull)
        #expect(f["headroom_in_10s"] is NSNull)
        #expect(f["trend"] as? String == "not_enough_history")
        #expect(f["method"] as? String == "theil-sen")
        // The highest sensor headroom (SEN1: 41.05 °C, fair 55, critical 100 → −0.31).
        let h = try #require((f["headroom"] as? NSNumber)?.doubleValue)
        let sensors = try #require(json["sensors"] as? [[String: Any]])
        let perSensor = sensors.compactMap { ($0["headroom"] as? NSNumber)?.doubleValue }
        #expect(!perSensor.isEmpty)
        #expect(h == perSensor.max())
    }
}
