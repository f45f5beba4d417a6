import Foundation

/// Where `--camera [DEVICE]` reads frames from (docs/signer.md, "Camera"): a V4L2 video device (a webcam,
/// `/dev/video0`), or a video file that stands in for one (the e2e tests, or a recording made elsewhere).
///
/// Both go through the same ffmpeg child process as video input (`VideoFrames`): only ffmpeg's input arguments differ.
/// A device is opened with `-f v4l2` at a size and rate that suit QR codes; a file is played at its own speed (`-re`),
/// so it arrives as a camera's frames would and `--timeout` means the same for both.
public struct CameraSource: Sendable, Equatable {
    /// What the path names.
    public enum Kind: Sendable, Equatable {
        /// A character device: read with ffmpeg's V4L2 input.
        case device
        /// A regular file: a video played at its own speed.
        case videoFile
    }

    /// The device used when `--camera` names none.
    public static let defaultDevice = "/dev/video0"
    /// The capture size asked of a device: 1280×720 resolves a version 25 code held at arm's length; a device that
    /// cannot do it gets the nearest size its driver offers (V4L2 drivers adjust, ffmpeg goes on).
    public static let captureSize = "1280x720"
    /// The capture rate asked of a device, frames a second (the driver adjusts it too); frames are then sampled at
    /// `VideoFrames.defaultFramesPerSecond`.
    public static let captureRate = 30

    /// The device or file.
    public let path: String
    /// What it is.
    public let kind: Kind

    public init(path: String, kind: Kind) {
        self.path = path
        self.kind = kind
    }

    /// Looks at `path` (default `/dev/video0`): a character device or a regular file.
    ///
    /// - Throws: `CLIError`: I/O (6) when nothing is there or it cannot be read (naming what to do), invalid input
    ///   (2) for a directory or another kind of file.
    public static func open(_ path: String?) throws -> CameraSource {
        let path = path ?? defaultDevice
        var info = stat()
        guard stat(path, &info) == 0 else {
            let reason = errno == ENOENT ? "no such device or file" : String(cString: strerror(errno))
            throw CLIError(
                .io,
                "cannot open the camera \(path): \(reason); connect a camera and name its device "
                    + "(ls /dev/video*), or give a video file")
        }
        let kind: Kind
        switch info.st_mode & S_IFMT {
        case S_IFCHR: kind = .device
        case S_IFREG: kind = .videoFile
        default:
            throw CLIError(.invalidInput, "\(path) is neither a camera device nor a video file")
        }
        guard access(path, R_OK) == 0 else {
            let hint = kind == .device ? " (on Debian, add your user to the video group)" : ""
            throw CLIError(.io, "cannot open the camera \(path): permission denied\(hint)")
        }
        return CameraSource(path: path, kind: kind)
    }

    /// ffmpeg's input arguments for this source: `-f v4l2 -framerate 30 -video_size 1280x720 -i DEVICE` for a
    /// device, `-re -i FILE` for a video file.
    public var inputArguments: [String] {
        switch kind {
        case .device:
            ["-f", "v4l2", "-framerate", String(Self.captureRate), "-video_size", Self.captureSize, "-i", path]
        case .videoFile: ["-re", "-i", path]
        }
    }

    /// The whole ffmpeg command line (run through `env`, as `VideoFrames` runs it): the source in, 8-bit gray PGM
    /// frames out on standard output, `framesPerSecond` of them a second.
    public func ffmpegArguments(framesPerSecond: Int = VideoFrames.defaultFramesPerSecond) -> [String] {
        VideoFrames.ffmpegArguments(input: inputArguments, framesPerSecond: framesPerSecond)
    }

    /// How messages name the source: "the camera /dev/video0" or "the video clip.mp4".
    public var name: String { kind == .device ? "the camera \(path)" : "the video \(path)" }
}
