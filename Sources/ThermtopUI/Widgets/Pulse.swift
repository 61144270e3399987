import ThermtopCore

/// The heartbeat in the header: a pure function of the animation tick and the tier. It beats
/// smoothly at full, half as fast at reduced, and is static at minimal (the dashboard then
/// schedules no animation frames at all).
public enum Pulse {
    static let unicodeFrames: [String] = ["♥    ", "♥─╮  ", "♥─╯╲ ", "♥·  ─"]
    static let asciiFrames: [String] = ["<3   ", "<3-^ ", "<3-v\\", "<3. -"]

    /// Animation frames per second by tier (0 = static). Each frame is a wakeup: at 4 fps the
    /// pulse alone cost about half of thermtop's CPU on the peer benchmark (0.32 % vs 0.21 % of a
    /// core without it, htop 0.24 %), so it beats at 2 fps at full and 1 fps at reduced.
    public static func framesPerSecond(_ tier: QualityTier) -> Double {
        switch tier {
        case .full: 2
        case .reduced: 1
        case .minimal: 0
        }
    }

    /// The pulse text for a tick.
    public static func frame(tick: Int, tier: QualityTier, unicode: Bool) -> String {
        let frames = unicode ? unicodeFrames : asciiFrames
        switch tier {
        case .full, .reduced: return frames[((tick % frames.count) + frames.count) % frames.count]
        case .minimal: return unicode ? "♥ ── " : "<3 --"
        }
    }
}
