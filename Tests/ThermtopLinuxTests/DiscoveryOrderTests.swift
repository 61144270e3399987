import Testing
@testable import ThermtopLinux

@Suite("Discovery: channel numbers")
struct DiscoveryOrderTests {
    @Test("channel and trip numbers come ascending and each once, however the folder lists them")
    func channelNumbersAscendingOnce() {
        #expect(sortedUnique([]) == [])
        #expect(sortedUnique([3, 1, 3, 2, 1, 10]) == [1, 2, 3, 10])
        let files = ["temp10_input", "temp2_input", "temp2_max", "temp1_input", "tempx_input", "temp3_label", "fan1_input", "pwm1", "pwm2", "pwm2_enable"]
        let listing = files
        #expect(HwmonLayout.indices(listing, prefix: "temp", suffix: "_input") == [1, 2, 10])
        #expect(sortedUnique(HwmonLayout.indices(listing, prefix: "fan", suffix: "_input")
            + HwmonLayout.indices(listing, prefix: "pwm", suffix: "")) == [1, 2])
    }
}
