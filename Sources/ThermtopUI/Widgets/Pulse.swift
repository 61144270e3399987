import ThermtopCore

/// The heartbeat in the header: a pure function of the animation tick and the tier. It beats
/// smoothly at full, half as fast at reduced, and is static at minimal (the dashboard then
/// schedules no animation frames at all). Each frame is a wakeup, so the rate is low (2 fps).
public enum Pulse {
    static let unicodeFrames: [String] = ["♥    ", "♥─╮  ", "♥─╯╲ ", "♥·  ─"]
    static let asciiFrames: [String] = ["<3   ", "<3-^ ", "<3-v\\", "<3. -"]

    /// The pulse text for a tick.
    public static func frame(tick: Int, tier: QualityTier, unicode: Bool) -> String {
        let frames = unicode ? unicodeFrames : asciiFrames
        switch tier {
        case .full, .reduced: return frames[((tick % frames.count) + frames.count) % frames.count]
        case .minimal: return unicode ? "♥ ── " : "<3 --"
        }
    }
}
