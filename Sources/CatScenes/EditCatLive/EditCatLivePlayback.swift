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

    /// Stops the animation for good and waits for the frame in the making (the app is ending).
    public func endPlaying() async {
        live?.playing = false
        await live?.player.end()
        await LivePlayer.endAll()  // those of cats opened before, too
    }

    /// Plays `live`'s animation until it is paused, or another cat is opened. The player's
    /// closures hold the scene weakly: a player left running holds nothing of it.
    func play(_ live: LiveEdit) {
        let options = DecodeOptions(maxPixels: live.request.maxPixels, maxFrames: live.request.maxFrames)
        let (interactor, input, count, name) = (self.interactor, live.input, live.frames, live.request.input)
        live.player.play(
            open: {
                let frames = try await interactor.openFrames(input, options: options)
                // Read again from the file: it must still be the animation opened.
                if let frames, frames.count != count {
                    throw SceneFailure(
                        status: .dataError, message: "\(name) has \(frames.count) frames now, not \(count) as opened")
                }
                return frames
            },
            make: { [weak self, weak live] frames in
                let chain = live.flatMap { live in
                    try? FilterChain(specs: self?.shownChain(live) ?? [], subjects: self?.subjects)
                }
                let (box, fullWidth) = (live?.sizes.preview ?? (1, 1), live?.width ?? 1)
                return Task {
                    guard let chain else { throw CancellationError() }
                    return try await frames.make(fitting: box, chain: chain, fullWidth: fullWidth)
                }
            },
            show: { [weak self, weak live] frame, count in
                guard let self, let live, self.live === live else { return live?.player.stop() ?? () }
                if !live.zoomWanted && live.cropShape == nil && !live.showOriginal {
                    view.showFrame(EditCatLiveFrame(picture: frame.picture, index: frame.index, count: count))
                }
            },
            failed: { [weak self, weak live] error in
                guard let self, let live, self.live === live else { return }
                live.playing = false
                view.showError(SceneFailure(error))
                Task { await self.refresh() }  // the status line says it is paused
            })
    }
}
