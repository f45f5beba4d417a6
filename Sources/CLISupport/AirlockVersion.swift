/// The version both executables report with `--version`.
public enum AirlockVersion {
    /// The semantic version of this build of Airlock.
    public static let string = "0.1.0"
}
