import Foundation
import QRImage

/// A reproducible stand-in for a laptop webcam filming a phone that shows an animated QR code (issue 33 item 2).
///
/// Each frame is 1280×720 8-bit gray. The phone (portrait, a dark bezel, a white screen with a few lines of UI text
/// and a progress bar) holds the code 4 screen units a module; it is seen by a pinhole camera (focal length 1,000 px,
/// about 65° across, a laptop webcam) turned 6° in the image plane and tilted 18° and 10° about the two other axes, at
/// a distance where the symbol is about 330 px across (modules 3.5–4.3 px after the perspective), a little off the
/// centre; a hand moves it by a few pixels and a fraction of a degree from frame to frame (a random walk pulled back
/// to the mean pose). Light: the room behind is a dim gradient with a window's glow and a dark desk edge, the screen's
/// glass reflects a soft glare over part of the code, and the lens darkens the corners (vignetting to 65%). The
/// camera: 2×2 samples a pixel, a Gaussian blur of σ = 1.1 px (focus), and sensor noise of σ = √(3.5² + 0.12·value)
/// gray levels (read noise and shot noise: about 6 on the white screen, 4 on the dark modules). Every draw comes from
/// SplitMix64 seeded by the seed and the frame's index, so the same seed gives the same bytes on any machine.
struct CameraScene {
    static let width = 1280
    static let height = 720
    /// Pinhole focal length in pixels.
    static let focal = 1_000.0
    /// Screen units per QR module on the phone.
    static let moduleUnits = 4.0

    /// Where the phone is, for one frame.
    struct Pose {
        var roll = 6.0
        var yaw = 18.0
        var pitch = -10.0
        var centerX = 610.0
        var centerY = 350.0
        /// Distance in screen units: the 340-unit symbol is about 330 px across.
        var distance = 1_030.0
    }

    let code: QRCode
    /// The frame's index (1-based) of `count`, for the progress bar.
    let index: Int
    let count: Int
    let pose: Pose
    let seed: UInt64

    /// The poses of `count` frames: a random walk around the mean pose, from `seed`.
    static func poses(count: Int, seed: UInt64) -> [Pose] {
        var random = SplitMix64(seed: seed ^ 0x5EED_0F_CAFE)
        let mean = Pose()
        var pose = mean
        var poses: [Pose] = []
        for _ in 0..<count {
            pose.centerX += 0.15 * (mean.centerX - pose.centerX) + 4 * random.gaussian()
            pose.centerY += 0.15 * (mean.centerY - pose.centerY) + 4 * random.gaussian()
            pose.roll += 0.15 * (mean.roll - pose.roll) + 0.5 * random.gaussian()
            pose.yaw += 0.15 * (mean.yaw - pose.yaw) + 1.0 * random.gaussian()
            pose.pitch += 0.15 * (mean.pitch - pose.pitch) + 1.0 * random.gaussian()
            pose.distance += 0.15 * (mean.distance - pose.distance) + 8 * random.gaussian()
            poses.append(pose)
        }
        return poses
    }

    /// The frame's gray samples, row by row.
    func render() -> [UInt8] {
        let w = Self.width
        let h = Self.height
        let inverse = Self.inverseHomography(pose)
        var linear = [Float](repeating: 0, count: w * h)
        let words = Self.words()
        let offsets: [Double] = [0.25, 0.75]
        for v in 0..<h {
            for u in 0..<w {
                var sum = 0.0
                for dy in offsets {
                    for dx in offsets {
                        let px = Double(u) + dx
                        let py = Double(v) + dy
                        let z = inverse[6] * px + inverse[7] * py + inverse[8]
                        let x = (inverse[0] * px + inverse[1] * py + inverse[2]) / z
                        let y = (inverse[3] * px + inverse[4] * py + inverse[5]) / z
                        sum += radiance(u: px, v: py, x: x, y: y, words: words)
                    }
                }
                // Lens vignetting: the corners get 65% of the centre's light.
                let cx = (Double(u) - Double(w) / 2) / (Double(w) / 2)
                let cy = (Double(v) - Double(h) / 2) / (Double(w) / 2)
                let gain = 1 - 0.35 * (cx * cx + cy * cy) / (1 + 0.5625)
                linear[v * w + u] = Float(sum / 4 * gain)
            }
        }
        let blurred = Self.gaussianBlur(linear, width: w, height: h, sigma: 1.1)
        var random = SplitMix64(seed: seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
        var pixels = [UInt8](repeating: 0, count: w * h)
        for offset in 0..<(w * h) {
            let value = Double(blurred[offset])
            let noisy = value + (3.5 * 3.5 + 0.12 * max(0, value)).squareRoot() * random.gaussian()
            pixels[offset] = UInt8(max(0, min(255, noisy.rounded())))
        }
        return pixels
    }

    /// The light reaching image point (`u`, `v`), which sees the phone's plane at (`x`, `y`) screen units (origin:
    /// the code's centre).
    private func radiance(u: Double, v: Double, x: Double, y: Double, words: [(Double, Double, Double)]) -> Double {
        // The phone: screen x in -190...190, y in -330...430, a bezel of 12 units at the sides and 40 above and below.
        let inPhone = x > -202 && x < 202 && y > -370 && y < 470 && Self.insideRoundedCorner(x: x, y: y)
        guard inPhone else { return Self.room(u: u, v: v) }
        let glare = 38 * exp(-((x - 130) * (x - 130) + (y + 120) * (y + 120)) / (2 * 110 * 110))
        guard x > -190, x < 190, y > -330, y < 430 else { return 22 + glare }
        return min(255, screen(x: x, y: y, words: words) + glare)
    }

    /// What the screen shows at (`x`, `y`): the code on white, a title line, a caption and a progress bar.
    private func screen(x: Double, y: Double, words: [(Double, Double, Double)]) -> Double {
        let white = 228.0
        let black = 30.0
        let half = Double(code.size) * Self.moduleUnits / 2
        if x >= -half, x < half, y >= -half, y < half {
            let column = Int((x + half) / Self.moduleUnits)
            let row = Int((y + half) / Self.moduleUnits)
            return code.isDark(x: column, y: row) ? black : white
        }
        // Text lines: the title above the code, the caption below it, as runs of dark "words".
        for (lineY, height) in [(-290.0, 16.0), (215.0, 11.0), (236.0, 11.0)] where y >= lineY && y < lineY + height {
            for (start, length, line) in words where line == lineY && x >= start && x < start + length {
                return 70
            }
        }
        // The progress bar: dark up to the frame's share.
        if y >= 270, y < 278, x >= -150, x < 150 {
            return x < -150 + 300 * Double(index) / Double(count) ? 60 : 200
        }
        return white
    }

    /// The rounded corners of the phone (radius 40 units): within 40 of the rectangle inset by 40.
    private static func insideRoundedCorner(x: Double, y: Double) -> Bool {
        let radius = 40.0
        let dx = x - min(202 - radius, max(-202 + radius, x))
        let dy = y - min(470 - radius, max(-370 + radius, y))
        return dx * dx + dy * dy <= radius * radius
    }

    /// The room behind the phone: a dim gradient, a window's glow at the top right, a dark desk at the bottom.
    private static func room(u: Double, v: Double) -> Double {
        if v > 610 + 0.06 * u { return 48 + 0.01 * u }
        let glow = 70 * exp(-((u - 1_120) * (u - 1_120) + (v - 110) * (v - 110)) / (2 * 170 * 170))
        return 78 + 36 * u / Double(width) - 18 * v / Double(height) + glow
    }

    /// The title, caption and status "words": (start x, length, line y), the same for every frame.
    private static func words() -> [(Double, Double, Double)] {
        var random = SplitMix64(seed: 0x7E47)
        var words: [(Double, Double, Double)] = []
        for (lineY, last) in [(-290.0, 90.0), (215.0, 150.0), (236.0, 60.0)] {
            var x = -150.0
            while x < last {
                let length = 14 + 40 * random.uniform()
                words.append((x, min(length, last - x), lineY))
                x += length + 8
            }
        }
        return words
    }

    /// The 3×3 inverse of the plane-to-image homography for `pose` (row-major).
    static func inverseHomography(_ pose: Pose) -> [Double] {
        let (a, b, c) = (pose.roll * .pi / 180, pose.yaw * .pi / 180, pose.pitch * .pi / 180)
        // R = Rz(roll) · Ry(yaw) · Rx(pitch); only its first two columns map the plane z = 0.
        let rz = [cos(a), -sin(a), 0, sin(a), cos(a), 0, 0, 0, 1.0]
        let ry = [cos(b), 0, sin(b), 0, 1, 0, -sin(b), 0, cos(b)]
        let rx = [1, 0, 0, 0, cos(c), -sin(c), 0, sin(c), cos(c)]
        let r = multiply(multiply(rz, ry), rx)
        let f = focal
        let (cx, cy) = (Double(width) / 2, Double(height) / 2)
        let z = pose.distance
        let t = [z * (pose.centerX - cx) / f, z * (pose.centerY - cy) / f, z]
        // H = K · [r1 r2 t]
        let m = [r[0], r[1], t[0], r[3], r[4], t[1], r[6], r[7], t[2]]
        let k = [f, 0, cx, 0, f, cy, 0, 0, 1]
        return invert(multiply(k, m))
    }

    private static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        (0..<9).map { index in
            let (row, column) = (index / 3, index % 3)
            return (0..<3).reduce(0.0) { $0 + a[row * 3 + $1] * b[$1 * 3 + column] }
        }
    }

    private static func invert(_ m: [Double]) -> [Double] {
        let cofactors = [
            m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
        ]
        let determinant = m[0] * cofactors[0] + m[1] * cofactors[3] + m[2] * cofactors[6]
        return cofactors.map { $0 / determinant }
    }

    /// A separable Gaussian blur (kernel radius 3σ, edges clamped).
    static func gaussianBlur(_ image: [Float], width: Int, height: Int, sigma: Double) -> [Float] {
        let radius = Int((3 * sigma).rounded(.up))
        var kernel = (-radius...radius).map { Float(exp(-Double($0 * $0) / (2 * sigma * sigma))) }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        var across = [Float](repeating: 0, count: image.count)
        for y in 0..<height {
            for x in 0..<width {
                var sum: Float = 0
                for k in -radius...radius {
                    sum += kernel[k + radius] * image[y * width + min(width - 1, max(0, x + k))]
                }
                across[y * width + x] = sum
            }
        }
        var out = [Float](repeating: 0, count: image.count)
        for y in 0..<height {
            for x in 0..<width {
                var sum: Float = 0
                for k in -radius...radius {
                    sum += kernel[k + radius] * across[min(height - 1, max(0, y + k)) * width + x]
                }
                out[y * width + x] = sum
            }
        }
        return out
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a small seeded generator whose output is the same on every machine (the
/// camera frames, the coin-selection pool and draws).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Standard normal (Box–Muller, one of the pair).
    mutating func gaussian() -> Double {
        let u1 = max(uniform(), 0x1.0p-53)
        let u2 = uniform()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
