import Foundation
import Thermtop

// The seeds' code (../shared/seeds), compiled on Linux against `import Thermtop`.

// Seed 002, verbatim.
enum InferenceBudget {
    case full // as usual
    case reduced // thin out frequency
    case suspended // stop inference, switch to a lightweight fallback
    static func current() -> InferenceBudget {
        switch ProcessInfo.processInfo.thermalState {
        case .nominal, .fair: return .full
        case .serious: return .reduced
        case .critical: return .suspended
        @unknown default: return .reduced
        }
    }
}

// Seed 000, changed only where Linux lacks Objective-C and Combine: closure observers instead
// of `#selector` (their tokens kept, as the selector form needs none), a plain class instead of
// `ObservableObject` with `@Published`.
@MainActor
final class DeviceConditionMonitor {
    private(set) var thermalState: ProcessInfo.ThermalState
    private(set) var isLowPower: Bool
    private var observers: [NSObjectProtocol] = []
    init() {
        let info = ProcessInfo.processInfo
        thermalState = info.thermalState
        isLowPower = info.isLowPowerModeEnabled
        observers.append(NotificationCenter.default.addObserver(
            forName: ProcessInfo.thermalStateDidChangeNotification, object: nil, queue: nil) { [weak self] _ in
                let next = ProcessInfo.processInfo.thermalState
                Task { @MainActor in self?.thermalState = next }
            })
        observers.append(NotificationCenter.default.addObserver(
            forName: .NSProcessInfoPowerStateDidChange, object: nil, queue: nil) { [weak self] _ in
                let next = ProcessInfo.processInfo.isLowPowerModeEnabled
                Task { @MainActor in self?.isLowPower = next }
            })
    }
}

// Seed 000's tier, verbatim.
enum RenderTier: Int, Comparable { case full = 3 // no constraints
    case reduced = 2 // drop decoration
    case minimal = 1 // essentials only
    static func < (lhs: RenderTier, rhs: RenderTier) -> Bool { lhs.rawValue < rhs.rawValue }}
extension DeviceConditionMonitor { var tier: RenderTier { switch thermalState { case .critical, .serious: return .minimal
    case .fair: return isLowPower ? .minimal : .reduced
    case .nominal: return isLowPower ? .reduced : .full
    @unknown default: return .reduced } }}
