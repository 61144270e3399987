public enum ThermtopCoreVersion { public static let string = "0.1.0" }
