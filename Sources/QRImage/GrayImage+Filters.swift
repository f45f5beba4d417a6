/// Image clean-up used by the reader's retry passes when zbar finds nothing in the image as given.
extension GrayImage {
    /// The image scaled by 2 with bilinear interpolation (small or low-resolution codes get larger modules).
    func upscaledTwice() -> GrayImage {
        let outWidth = width * 2
        let outHeight = height * 2
        var out = [UInt8](repeating: 255, count: outWidth * outHeight)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<outHeight {
                    // Sample centers: output pixel y maps to input (y - 0.5) / 2, in fixed point with 2 fraction bits.
                    let fy = max(0, 2 * y - 1)
                    let y0 = min(height - 1, fy / 4)
                    let y1 = min(height - 1, y0 + 1)
                    let wy = fy % 4
                    for x in 0..<outWidth {
                        let fx = max(0, 2 * x - 1)
                        let x0 = min(width - 1, fx / 4)
                        let x1 = min(width - 1, x0 + 1)
                        let wx = fx % 4
                        let top = Int(src[y0 * width + x0]) * (4 - wx) + Int(src[y0 * width + x1]) * wx
                        let bottom = Int(src[y1 * width + x0]) * (4 - wx) + Int(src[y1 * width + x1]) * wx
                        dst[y * outWidth + x] = UInt8((top * (4 - wy) + bottom * wy + 8) / 16)
                    }
                }
            }
        }
        return GrayImage(width: outWidth, height: outHeight, pixels: out)
    }

    /// The image halved in each direction by averaging 2×2 blocks (large photos get faster and less noisy).
    func downscaledByHalf() -> GrayImage {
        let outWidth = max(1, width / 2)
        let outHeight = max(1, height / 2)
        var out = [UInt8](repeating: 255, count: outWidth * outHeight)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<outHeight {
                    let r0 = min(height - 1, 2 * y) * width
                    let r1 = min(height - 1, 2 * y + 1) * width
                    for x in 0..<outWidth {
                        let c0 = min(width - 1, 2 * x)
                        let c1 = min(width - 1, 2 * x + 1)
                        let sum = Int(src[r0 + c0]) + Int(src[r0 + c1]) + Int(src[r1 + c0]) + Int(src[r1 + c1])
                        dst[y * outWidth + x] = UInt8((sum + 2) / 4)
                    }
                }
            }
        }
        return GrayImage(width: outWidth, height: outHeight, pixels: out)
    }

    /// The image with a 3×3 box blur, which flattens pixel noise and JPEG ringing before thresholding.
    func boxBlurred() -> GrayImage {
        var out = pixels
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    let ya = max(0, y - 1)
                    let yb = min(height - 1, y + 1)
                    for x in 0..<width {
                        let xa = max(0, x - 1)
                        let xb = min(width - 1, x + 1)
                        var sum = 0
                        for row in [ya, y, yb] {
                            let base = row * width
                            sum += Int(src[base + xa]) + Int(src[base + x]) + Int(src[base + xb])
                        }
                        dst[y * width + x] = UInt8(sum / 9)
                    }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: out)
    }

    /// The image made black and white against the mean of a `window`-pixel square around each pixel
    /// (Bradley–Roth adaptive thresholding over an integral image).
    ///
    /// A pixel becomes black when it is darker than the local mean by more than `percent` per cent and by at
    /// least `minContrast` levels, so gradients, shadows and gray backgrounds are flattened to white while module
    /// edges stay sharp.
    func binarized(window: Int, percent: Int = 15, minContrast: Int = 8) -> GrayImage {
        let stride = width + 1
        var integral = [Int](repeating: 0, count: stride * (height + 1))
        var out = [UInt8](repeating: 255, count: width * height)
        let half = max(1, window / 2)
        pixels.withUnsafeBufferPointer { src in
            integral.withUnsafeMutableBufferPointer { sums in
                for y in 0..<height {
                    var rowSum = 0
                    for x in 0..<width {
                        rowSum += Int(src[y * width + x])
                        sums[(y + 1) * stride + x + 1] = sums[y * stride + x + 1] + rowSum
                    }
                }
                out.withUnsafeMutableBufferPointer { dst in
                    for y in 0..<height {
                        let y0 = max(0, y - half)
                        let y1 = min(height, y + half + 1)
                        for x in 0..<width {
                            let x0 = max(0, x - half)
                            let x1 = min(width, x + half + 1)
                            let area = (y1 - y0) * (x1 - x0)
                            let sum =
                                sums[y1 * stride + x1] - sums[y0 * stride + x1] - sums[y1 * stride + x0]
                                + sums[y0 * stride + x0]
                            let value = Int(src[y * width + x])
                            let dark =
                                value * area * 100 < sum * (100 - percent) && value * area + minContrast * area < sum
                            dst[y * width + x] = dark ? 0 : 255
                        }
                    }
                }
            }
        }
        return GrayImage(width: width, height: height, pixels: out)
    }

    /// The image with its levels stretched so the darkest 1% maps to black and the brightest 1% to white.
    func contrastStretched() -> GrayImage {
        var histogram = [Int](repeating: 0, count: 256)
        for value in pixels { histogram[Int(value)] += 1 }
        let cut = pixels.count / 100
        var low = 0
        var seen = 0
        while low < 255 && seen + histogram[low] <= cut {
            seen += histogram[low]
            low += 1
        }
        var high = 255
        seen = 0
        while high > 0 && seen + histogram[high] <= cut {
            seen += histogram[high]
            high -= 1
        }
        guard high > low else { return self }
        let span = high - low
        let table = (0..<256).map { UInt8(clamping: ($0 - low) * 255 / span) }
        return GrayImage(width: width, height: height, pixels: pixels.map { table[Int($0)] })
    }
}

extension GrayImage {
    /// The image shrunk by an integer `factor`: each output pixel the mean of a `factor`×`factor` block (the last
    /// row and column of blocks clipped to the image).
    func reduced(by factor: Int) -> GrayImage {
        precondition(factor >= 1, "reduction factor below 1")
        if factor == 2, width % 2 == 0, height % 2 == 0 { return reducedByTwo() }
        let outWidth = max(1, (width + factor - 1) / factor)
        let outHeight = max(1, (height + factor - 1) / factor)
        let fullColumns = width / factor
        var sums = [UInt32](repeating: 0, count: outWidth)
        var out = [UInt8](repeating: 255, count: outWidth * outHeight)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                sums.withUnsafeMutableBufferPointer { sum in
                    for outY in 0..<outHeight {
                        sum.update(repeating: 0)
                        let top = outY * factor
                        let rows = min(factor, height - top)
                        for y in top..<(top + rows) {
                            var offset = y * width
                            for outX in 0..<fullColumns {
                                var total: UInt32 = 0
                                for dx in 0..<factor { total &+= UInt32(src[offset &+ dx]) }
                                sum[outX] &+= total
                                offset &+= factor
                            }
                            if fullColumns < outWidth {
                                for x in (fullColumns * factor)..<width {
                                    sum[fullColumns] &+= UInt32(src[y * width + x])
                                }
                            }
                        }
                        let row = outY * outWidth
                        for outX in 0..<outWidth {
                            let count = UInt32(rows * min(factor, width - outX * factor))
                            dst[row + outX] = UInt8((sum[outX] + count / 2) / count)
                        }
                    }
                }
            }
        }
        return GrayImage(width: outWidth, height: outHeight, pixels: out)
    }

    /// `reduced(by: 2)` of an image with even sides: each output pixel the rounded mean of a 2×2 block.
    private func reducedByTwo() -> GrayImage {
        let outWidth = width / 2
        let outHeight = height / 2
        var out = [UInt8](repeating: 255, count: outWidth * outHeight)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                guard let source = src.baseAddress, let target = dst.baseAddress else { return }
                for outY in 0..<outHeight {
                    let top = source + 2 * outY * width
                    let bottom = top + width
                    let row = target + outY * outWidth
                    for outX in 0..<outWidth {
                        let x = 2 * outX
                        let sum = UInt16(top[x]) &+ UInt16(top[x + 1]) &+ UInt16(bottom[x]) &+ UInt16(bottom[x + 1])
                        row[outX] = UInt8(truncatingIfNeeded: (sum &+ 2) >> 2)
                    }
                }
            }
        }
        return GrayImage(width: outWidth, height: outHeight, pixels: out)
    }

    /// The smallest width of a dark or light run that recurs along a few rows and columns across the image, a cheap
    /// estimate of the smallest QR module drawn in it; nil when the lines sampled show too little structure.
    ///
    /// Eight rows and eight columns at even spacing are thresholded at their own midpoint between darkest and
    /// lightest (lines with a contrast under 64 are skipped) and cut into runs; the first and last run of a line
    /// (the margins) are left out. The result is the shortest run length seen at least `minimumRepeats` times, so
    /// one stray short run (a speck, an edge) does not count but a code's modules, text strokes or noise do.
    func smallestRecurringRun(minimumRepeats: Int = 3) -> Int? {
        guard width >= 16, height >= 16 else { return nil }
        var counts: [Int: Int] = [:]
        var runs = 0
        func measure(_ line: [UInt8]) {
            guard let low = line.min(), let high = line.max(), Int(high) - Int(low) >= 64 else { return }
            let threshold = (Int(low) + Int(high)) / 2
            var lengths: [Int] = []
            var dark = Int(line[0]) < threshold
            var length = 0
            for sample in line {
                let isDark = Int(sample) < threshold
                if isDark == dark {
                    length += 1
                } else {
                    lengths.append(length)
                    dark = isDark
                    length = 1
                }
            }
            guard lengths.count >= 2 else { return }
            for length in lengths.dropFirst() {
                counts[length, default: 0] += 1
                runs += 1
            }
        }
        for step in 1...8 {
            let y = height * step / 9
            measure(Array(pixels[(y * width)..<(y * width + width)]))
            let x = width * step / 9
            measure((0..<height).map { pixels[$0 * width + x] })
        }
        guard runs >= 24 else { return nil }
        return counts.filter { $0.value >= minimumRepeats }.keys.min()
    }
}
