import CatFaces
import CatImageIO
import CatPixels
import CatSupport
import FilterCore

/// The live editor's ways of looking and cutting beyond the seed app: the original
/// (`space`), a crop frame (`c`), a caption typed in place (`t`), 1:1 pixels (`z`), and
/// the question before quitting with unsaved changes (`q`). Each is state in `LiveEdit`
/// that `refresh` shows; each change to the chain they make is a step `u` undoes.
extension EditCatLivePresenter {
    // MARK: Quit

    /// `q`: quits, unless the chain has changed since it was last saved (or opened) and
    /// this is the first `q` since: then the view asks (another `q` quits, `s` saves).
    public func requestQuit() async {
        guard let live, live.chain != live.savedChain, !live.askedToQuit else { return view.quit() }
        live.askedToQuit = true
        view.askBeforeQuitting()
    }

    // MARK: Compare

    /// `space`: the original instead of the chain, until `space` again or a change.
    public func toggleOriginal() async {
        guard let live else { return }
        live.showOriginal.toggle()
        await refresh()
    }

    // MARK: Crop

    /// `c`: the next shape (free → 1:1 → 4:5 → 9:16 → 16:9 → free), as large as the chain's
    /// result holds, placed as `crop:WxH:cat` would place it (on the cats found on the
    /// preview of the chain); free ends the crop. The preview shows the chain with the frame.
    public func cycleCrop() async {
        guard let live else { return }
        // The shape is chosen now, the frame placed after the cats are found: a `c` pressed
        // meanwhile goes on from this shape, and the later one wins.
        let next = (live.cropShape ?? -1) + 1
        live.cropShape = next < LiveEdit.cropPresets.count ? next : nil
        live.cropWhenPlaced = false
        (live.zoom, live.zoomWanted, live.caption, live.showOriginal) = (nil, false, nil, false)
        guard live.cropShape != nil,
            let size = try? FilterChain(specs: live.chain).outputSize(width: live.width, height: live.height)
        else {
            live.crop = nil
            return await refresh()
        }
        let shape = LiveEdit.cropPresets[next]
        var width = size.width, height = max(1, size.width * shape.height / shape.width)
        if height > size.height { (width, height) = (max(1, size.height * shape.width / shape.height), size.height) }
        let chain = live.chain
        guard let found = await chainSubjects(live), self.live === live, live.chain == chain, live.cropShape == next
        else { return }
        let subjects = Subjects(inView: found.finding.inView, clearOf: found.finding.clearOf)
            .scaled(by: Double(size.width) / Double(found.width))
        let place = Interest.cat(
            subjects, imageWidth: size.width, imageHeight: size.height, width: width, height: height)
        live.crop = LiveEdit.CropDraft(
            preset: next, x: place.x, y: place.y, width: width, height: height, imageWidth: size.width,
            imageHeight: size.height)
        live.trying = false
        if live.cropWhenPlaced { return await applyCrop() }
        await refresh()
    }

    /// Arrows while cropping: moves the frame a fiftieth of the picture's long side per
    /// step, inside the picture.
    public func nudgeCrop(x dx: Int, y dy: Int) async {
        guard let live, var crop = live.crop else { return }
        let step = max(1, max(crop.imageWidth, crop.imageHeight) / 50)
        crop.x = min(max(0, crop.x + dx * step), crop.imageWidth - crop.width)
        crop.y = min(max(0, crop.y + dy * step), crop.imageHeight - crop.height)
        guard crop != live.crop else { return }
        live.crop = crop
        await refresh()
    }

    /// Enter while cropping: the frame becomes the chain's last step, `crop:WxH+X+Y` (what
    /// a save writes, and what `u` takes back).
    public func applyCrop() async {
        guard let live, live.cropShape != nil else { return }
        guard let crop = live.crop, crop.preset == live.cropShape else {
            live.cropWhenPlaced = true  // Enter before the frame was placed: crop once it is
            return
        }
        live.cropWhenPlaced = false
        // The frame was placed on this chain's result, and fits it.
        guard let size = try? FilterChain(specs: live.chain).outputSize(width: live.width, height: live.height),
            size == (crop.imageWidth, crop.imageHeight), problem(with: live.chain + [crop.spec], live) == nil
        else {
            live.dropCrop()
            return await refresh()
        }
        live.record(live.snapshot, "crop \(LiveEdit.cropPresets[crop.preset].name) (\(crop.spec))")
        live.chain.append(crop.spec)
        (live.crop, live.cropShape) = (nil, nil)
        live.trying = false
        live.thumbnails = Array(repeating: nil, count: live.palette.count)
        await refresh()
    }

    /// Esc while cropping: no crop.
    public func cancelCrop() async {
        guard let live, live.cropShape != nil else { return }
        (live.crop, live.cropShape, live.cropWhenPlaced) = (nil, nil, false)
        await refresh()
    }

    // MARK: Caption

    /// `t`: a caption is being typed; the preview shows the chain (and the caption as it is
    /// typed, `typeCaption`). Once that is shown, a caption is placed on the chain's preview,
    /// so that the finder remembers the cats there and each key places the caption without
    /// finding them again.
    public func startCaption() async {
        guard let live else { return }
        (live.zoom, live.zoomWanted, live.crop, live.cropShape, live.showOriginal) = (nil, false, nil, nil, false)
        live.caption = ""
        live.trying = false
        await refresh()  // the prompt is up: the finding goes on while the first key is typed
        if let placed = try? FilterChain(specs: live.chain + ["caption:cat"], subjects: subjects) {
            _ = await interactor.renderLive(live.preview, fullWidth: live.width, chains: [placed])
        }
    }

    /// The caption as typed so far: the preview shows it, at most every 50 ms.
    public func typeCaption(_ text: String) async {
        guard let live, live.caption != nil, live.caption != text else { return }
        live.caption = text
        live.typed = true
        await refresh()
    }

    /// Enter on the caption: added to the chain as `caption:TEXT` (placed clear of the cats,
    /// as `catctl edit` places it). An empty one adds nothing; one too long is refused.
    public func keepCaption(_ text: String) async {
        guard let live, live.caption != nil else { return }
        live.caption = nil
        let spec = "caption:\(text)"
        if !text.trimmingWhitespace().isEmpty {
            if let problem = problem(with: live.chain + [spec], live) {
                view.showError(SceneFailure(status: .usage, message: problem))
            } else {
                live.record(live.snapshot, "add \(spec)")
                live.chain.append(spec)
                live.thumbnails = Array(repeating: nil, count: live.palette.count)
            }
        }
        await refresh()
    }

    /// Esc on the caption: dropped.
    public func dropCaption() async {
        guard let live, live.caption != nil else { return }
        live.caption = nil
        await refresh()
    }

    // MARK: Zoom

    /// `z`: 1:1 pixels of the full-size result of what the preview shows, around the cat's
    /// face when one is found on the preview, else the centre; `z` again: back. The input
    /// is decoded at full size once (within the pixel limit) and kept for the session.
    public func toggleZoom() async {
        guard let live else { return }
        // Decided now, shown once the picture is made: a `z` pressed meanwhile turns it off.
        live.zoomWanted.toggle()
        if !live.zoomWanted {
            live.zoom = nil  // the full-size input and the chain's result there stay: z again is quick
            return await refresh()
        }
        (live.crop, live.cropShape, live.caption, live.showOriginal) = (nil, nil, nil, false)
        do {
            let full: PixelBuffer
            if let kept = live.full {
                full = kept
            } else {
                let (interactor, input) = (self.interactor, live.input)
                let options = DecodeOptions(maxPixels: live.request.maxPixels, maxFrames: live.request.maxFrames)
                let decode = live.fullDecode ?? Task { try await interactor.openFull(input, options: options) }
                live.fullDecode = decode
                defer { live.fullDecode = nil }
                full = try await decode.value
                guard self.live === live else { return }
                // The file may have changed since it was opened: its chain was checked on that size.
                guard (full.width, full.height) == (live.width, live.height) else {
                    throw SceneFailure(
                        status: .dataError,
                        message:
                            "\(live.request.input) is \(full.width)x\(full.height) now, not \(live.width)x\(live.height) as opened"
                    )
                }
                live.full = full
            }
            let size = try FilterChain(specs: shownChain(live)).outputSize(width: full.width, height: full.height)
            var centre = (x: size.width / 2, y: size.height / 2)
            // Found on the chain's preview (a filter tried after it seldom moves the cat).
            if let found = await chainSubjects(live), let face = found.finding.faces.first {
                let factor = Double(size.width) / Double(found.width)
                centre = (Int(Double(face.x + face.width / 2) * factor), Int(Double(face.y + face.height / 2) * factor))
            }
            guard self.live === live, live.zoomWanted else { return }
            live.zoom = LiveEdit.ZoomView(x: centre.x, y: centre.y)
            await refresh()
        } catch {
            live.zoomWanted = false
            view.showError(SceneFailure(error))
        }
    }

    /// Arrows while zoomed: a quarter of the window per step.
    public func pan(x dx: Int, y dy: Int) async {
        guard let live, var zoom = live.zoom else { return }
        zoom.x += dx * max(1, live.sizes.preview.width / 4)
        zoom.y += dy * max(1, live.sizes.preview.height / 4)
        if let result = live.fullResult?.picture {  // kept inside the picture, so a step back is a step
            let (w, h) = (min(live.sizes.preview.width, result.width), min(live.sizes.preview.height, result.height))
            zoom.x = min(max(w / 2, zoom.x), result.width - (w - w / 2))
            zoom.y = min(max(h / 2, zoom.y), result.height - (h - h / 2))
        }
        guard zoom != live.zoom else { return }
        live.zoom = zoom
        await refresh()
    }

    // MARK: Shared

    /// What the preview shows of the chain: the chain, with the highlighted filter while
    /// trying it, or the caption being typed.
    func shownChain(_ live: LiveEdit) -> [String] {
        if let caption = live.caption {
            let spec = "caption:\(caption)"
            return caption.trimmingWhitespace().isEmpty || problem(with: live.chain + [spec], live) != nil
                ? live.chain : live.chain + [spec]
        }
        let tried = live.chain + [live.palette.spec(live.highlighted)]
        return live.trying && live.cropShape == nil && problem(with: tried, live) == nil ? tried : live.chain
    }

    /// The cats found on the preview of the chain (found once per chain), and the width of
    /// the picture they were found on; nil when another cat was opened meanwhile.
    func chainSubjects(_ live: LiveEdit) async -> (finding: CatFinding, width: Int)? {
        let chain = live.chain
        if let known = live.subjects, known.chain == chain { return (known.found, known.width) }
        var picture = live.preview
        if let drawn = live.drawn, drawn.chain == chain {
            picture = drawn.picture
        } else if !chain.isEmpty, let filters = try? FilterChain(specs: chain, subjects: subjects),
            case let .success(image)? = await interactor.renderLive(
                live.preview, fullWidth: live.width, chains: [filters]
            ).first
        {
            picture = image
        }
        let found = await interactor.cats(in: picture)
        guard self.live === live else { return nil }
        if live.chain == chain { live.subjects = (chain, found, picture.width) }
        return (found, picture.width)
    }
}
