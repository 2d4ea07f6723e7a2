import CatImageIO
import CatSupport
import FilterCore

/// An animation plays in the live editor at its own delays, through what the preview
/// shows (the chain, the filter tried), one frame made at a time (`LivePlayer`). `p` pauses
/// and plays again. The crop frame, the zoom and the original show a still picture.
extension EditCatLivePresenter {
    /// `p`: pauses the animation, or plays it again from where it was.
    public func togglePlaying() async {
        guard let live, live.frames > 1 else { return }
        live.playing.toggle()
        if live.playing { play(live) } else { live.player.stop() }
        await refresh()
    }

    /// Frames of animations shown, those shown more than 10 ms late, and the file's delays
    /// of those shown (for `bench --live --play`); zeroed by `resetPlayed`.
    public var played: (shown: Int, late: Int, delays: Int) { live?.player.played ?? (0, 0, 0) }
    public func resetPlayed() { live?.player.played = (0, 0, 0) }

    /// Plays `live`'s animation until it is paused, or another cat is opened.
    func play(_ live: LiveEdit) {
        let options = DecodeOptions(maxPixels: live.request.maxPixels, maxFrames: live.request.maxFrames)
        let (interactor, input) = (self.interactor, live.input)
        live.player.play(
            open: {
                let frames = try await interactor.openFrames(input, options: options)
                // Read again from the file: it must still be the animation opened.
                if let frames, frames.count != live.frames {
                    throw SceneFailure(
                        status: .dataError,
                        message: "\(live.request.input) has \(frames.count) frames now, not \(live.frames) as opened")
                }
                return frames
            },
            make: { [weak self] frames in
                let chain = (try? FilterChain(specs: self?.shownChain(live) ?? [], subjects: self?.subjects))
                let (box, fullWidth) = (live.sizes.preview, live.width)
                return Task {
                    guard let chain else { throw CancellationError() }
                    return try await frames.make(fitting: box, chain: chain, fullWidth: fullWidth)
                }
            },
            show: { [weak self] frame, count in
                guard let self, self.live === live else { return live.player.stop() }
                if !live.zoomWanted && live.cropShape == nil && !live.showOriginal {
                    view.showFrame(EditCatLiveFrame(picture: frame.picture, index: frame.index, count: count))
                }
            },
            failed: { [weak self] error in
                guard let self, self.live === live else { return }
                live.playing = false
                view.showError(SceneFailure(error))
                Task { await self.refresh() }  // the status line says it is paused
            })
    }
}
