import ThermtopLinux
typealias SystemClockForCLI = SystemClock
