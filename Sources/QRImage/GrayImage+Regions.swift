/// Finding where a code may be in a large frame, so that zbar scans a crop around it instead of the whole frame.
extension GrayImage {
    /// Boxes around clusters of blocks crossed by many sharp light–dark steps, the texture of a QR code's modules;
    /// largest first, each grown by a margin for the quiet zone and clipped to the image.
    ///
    /// Every `rowStep`-th row is read; each step between neighbouring samples of more than `edge` levels counts for
    /// the `block` × `block` block it falls in. Sensor noise rarely makes such a step, text and outlines make few per
    /// block; a block with at least `minimumSteps` is busy. Busy blocks touching (8 neighbours) form a cluster; a
    /// cluster smaller than `minimumBlocks` blocks is dropped.
    func busyRegions(
        block: Int = 16, rowStep: Int = 4, edge: Int = 24, minimumSteps: Int = 6, minimumBlocks: Int = 9
    ) -> [QRBounds] {
        let columns = (width + block - 1) / block
        let rows = (height + block - 1) / block
        guard columns >= 3, rows >= 3 else { return [] }
        var steps = [Int32](repeating: 0, count: columns * rows)
        pixels.withUnsafeBufferPointer { src in
            steps.withUnsafeMutableBufferPointer { counts in
                var y = rowStep / 2
                while y < height {
                    let line = y * width
                    let blockRow = (y / block) * columns
                    var previous = Int(src[line])
                    for x in 1..<width {
                        let value = Int(src[line + x])
                        let step = value - previous
                        if step > edge || step < -edge { counts[blockRow + x / block] += 1 }
                        previous = value
                    }
                    y += rowStep
                }
            }
        }
        var busy = steps.map { Int($0) >= minimumSteps }
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
            guard count >= minimumBlocks else { continue }
            let side = max(maxX - minX + 1, maxY - minY + 1) * block
            let margin = max(2 * block, side / 6)
            let x0 = max(0, minX * block - margin)
            let y0 = max(0, minY * block - margin)
            let x1 = min(width, (maxX + 1) * block + margin)
            let y1 = min(height, (maxY + 1) * block + margin)
            regions.append((count, QRBounds(x: x0, y: y0, width: x1 - x0, height: y1 - y0)))
        }
        return regions.sorted { $0.blocks > $1.blocks }.map(\.bounds)
    }

    /// The pixels inside `bounds` (which must lie within the image) as an image of their own.
    func cropped(to bounds: QRBounds) -> GrayImage {
        var out = [UInt8](repeating: 0, count: bounds.width * bounds.height)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for row in 0..<bounds.height {
                    let from = (bounds.y + row) * width + bounds.x
                    let to = row * bounds.width
                    for column in 0..<bounds.width { dst[to + column] = src[from + column] }
                }
            }
        }
        return GrayImage(width: bounds.width, height: bounds.height, pixels: out)
    }
}
