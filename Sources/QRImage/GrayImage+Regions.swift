/// Finding where a code may be in a large frame, so that zbar scans a crop around it instead of the whole frame.
extension GrayImage {
    /// Boxes around clusters of blocks crossed by many sharp light–dark steps both across and down, the texture of a
    /// QR code's modules; largest first, each grown by a margin for the quiet zone and clipped to the image.
    ///
    /// Every fourth row is read across and every fourth column down; each step between neighbouring samples of
    /// more than the frame's edge threshold (`edgeThreshold()`) counts for the 16 × 16 block it falls in, once for
    /// its direction. A block is busy when it has at least `minimumSteps` in both directions: sensor noise
    /// rarely makes such a step, and a straight edge (a phone's outline, a desk) makes them in one direction only, so
    /// it neither forms a cluster nor joins the code's. Busy blocks touching (8 neighbours) form a cluster; a cluster
    /// smaller than `minimumBlocks` blocks, or more than three times as long as it is wide (a line of text), is
    /// dropped.
    func busyRegions(minimumSteps: Int = 4, minimumBlocks: Int = 9) -> [QRBounds] {
        let block = Self.regionBlock
        let columns = (width + block - 1) / block
        let rows = (height + block - 1) / block
        guard columns >= 3, rows >= 3 else { return [] }
        let edge = UInt8(edgeThreshold())
        var across = [Int32](repeating: 0, count: columns * rows)
        var down = [Int32](repeating: 0, count: columns * rows)
        let (width, height) = (self.width, self.height)
        @inline(__always) func step(_ a: UInt8, _ b: UInt8) -> Int32 { (a > b ? a - b : b - a) > edge ? 1 : 0 }
        // Block by block, with no division per sample (this runs on every camera frame); the first sample of a row
        // is compared with the previous row's last (at most one stray count).
        pixels.withUnsafeBufferPointer { buffer in
            guard let src = buffer.baseAddress else { return }
            across.withUnsafeMutableBufferPointer { counts in
                var y = 2
                while y < height {
                    let line = y * width
                    let blockRow = (y / block) * columns
                    for column in 0..<columns {
                        let start = line + column * block
                        var found: Int32 = 0
                        for x in start..<min(line + width, start + block) { found &+= step(src[x], src[x - 1]) }
                        counts[blockRow + column] &+= found
                    }
                    y += 4
                }
            }
            down.withUnsafeMutableBufferPointer { counts in
                for y in 1..<height {
                    let line = y * width
                    let blockRow = (y / block) * columns
                    for column in 0..<columns {
                        var found: Int32 = 0
                        var x = line + column * block + 2
                        while x < min(line + width, line + column * block + block) {
                            found &+= step(src[x], src[x - width])
                            x += 4
                        }
                        counts[blockRow + column] &+= found
                    }
                }
            }
        }
        var busy = (0..<across.count).map { across[$0] >= minimumSteps && down[$0] >= minimumSteps }
        var regions: [(blocks: Int, bounds: QRBounds)] = []
        for start in 0..<busy.count where busy[start] {
            // Flood fill the cluster, tracking its extent in blocks.
            var stack = [start]
            busy[start] = false
            var count = 0
            var (minX, minY, maxX, maxY) = (columns, rows, -1, -1)
            while let cell = stack.popLast() {
                count += 1
                let (cx, cy) = (cell % columns, cell / columns)
                (minX, minY, maxX, maxY) = (min(minX, cx), min(minY, cy), max(maxX, cx), max(maxY, cy))
                for ny in max(0, cy - 1)...min(rows - 1, cy + 1) {
                    for nx in max(0, cx - 1)...min(columns - 1, cx + 1) where busy[ny * columns + nx] {
                        busy[ny * columns + nx] = false
                        stack.append(ny * columns + nx)
                    }
                }
            }
            let (spanX, spanY) = (maxX - minX + 1, maxY - minY + 1)
            // A code seen even at a steep slant is less than 3:1; a line of text is longer.
            guard count >= minimumBlocks, max(spanX, spanY) <= 3 * min(spanX, spanY) else { continue }
            // The busy blocks reach the code's edge; one more block (and a little for large codes) holds the rest
            // of its border modules and enough quiet zone for zbar to see the finder patterns end.
            let margin = block + max(spanX, spanY) * block / 64
            let x0 = max(0, minX * block - margin)
            let y0 = max(0, minY * block - margin)
            let x1 = min(width, (maxX + 1) * block + margin)
            let y1 = min(height, (maxY + 1) * block + margin)
            regions.append((count, QRBounds(x: x0, y: y0, width: x1 - x0, height: y1 - y0)))
        }
        return regions.sorted { $0.blocks > $1.blocks }.map(\.bounds)
    }

    /// The side of the blocks `busyRegions` counts steps in, in pixels.
    static let regionBlock = 16

    /// The smallest step between neighbouring samples that counts as an edge in `busyRegions`: an eighth of the
    /// frame's contrast (its 2nd to 98th percentile, from a sparse sample), kept within 16...24 levels (below 16,
    /// sensor noise in a dim frame makes steps; above 24, the blurred edges of small modules are missed).
    func edgeThreshold() -> Int {
        var histogram = [Int](repeating: 0, count: 256)
        var samples = 0
        pixels.withUnsafeBufferPointer { src in
            var y = 4
            while y < height {
                var x = 2
                while x < width {
                    histogram[Int(src[y * width + x])] += 1
                    x += 4
                }
                samples += (width - 2 + 3) / 4
                y += 8
            }
        }
        guard samples > 0 else { return 24 }
        func percentile(_ fraction: Int) -> Int {
            var seen = 0
            for (level, count) in histogram.enumerated() {
                seen += count
                if seen * 100 >= samples * fraction { return level }
            }
            return 255
        }
        return min(24, max(16, (percentile(98) - percentile(2)) / 8))
    }

    /// The pixels inside `bounds` (which must lie within the image) as an image of their own.
    func cropped(to bounds: QRBounds) -> GrayImage {
        var out = [UInt8](repeating: 0, count: bounds.width * bounds.height)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                guard let from = src.baseAddress, let to = dst.baseAddress else { return }
                for row in 0..<bounds.height {
                    (to + row * bounds.width).update(
                        from: from + (bounds.y + row) * width + bounds.x, count: bounds.width)
                }
            }
        }
        return GrayImage(width: bounds.width, height: bounds.height, pixels: out)
    }
}
