import CNcursesw
import ThermtopUI

extension Terminal {
    /// A curses key code (`wget_wch` returned KEY_CODE_YES) as a `Key`, or nil when
    /// the app has no use for it.
    static func functionKey(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_PPAGE: return .pageUp
        case KEY_NPAGE: return .pageDown
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_RESIZE: return .resize
        case KEY_BTAB: return .tab
        case thermtop_key_f(1)...thermtop_key_f(63): return .function(Int(code - thermtop_key_f(0)))
        default: return nil
        }
    }

    /// A character `wget_wch` returned (OK) as a `Key`. Control characters other than
    /// the named ones, and anything that is not a single safe column, give nil.
    static func characterKey(_ code: wint_t) -> Key? {
        switch code {
        case 3: return .interrupt          // Ctrl-C in raw mode (cbreak turns it into SIGINT)
        case 27: return .escape
        case 10, 13: return .enter         // nonl() makes Return arrive as '\r'
        case 9: return .tab
        case 8, 127: return .backspace
        default:
            guard let scalar = Unicode.Scalar(UInt32(code)) else { return nil }
            let character = Character(scalar)
            return CellBuffer.isSafe(character) ? .char(character) : nil
        }
    }
}
