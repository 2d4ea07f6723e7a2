import CatPixels

extension ImageEncoder {
    /// Writes an animation to `fd`: every frame when the format holds animations (GIF,
    /// WebP), else the first frame alone. Returns the number of frames written.
    @discardableResult
    public static func encode(
        _ animation: Animation, to fd: Int32, path: String, options: EncodeOptions
    ) throws(ImageIOError) -> Int {
        let metadata = animation.metadata.kept(by: options.metadata)
        if let codec = ImageCodecs.codec(for: options.format) as? any AnimationCodec {
            try codec.write(animation, fd: fd, path: path, metadata: metadata, options: options)
            return animation.frames.count
        }
        try encode(animation.frames[0], to: fd, path: path, options: options, metadata: animation.metadata)
        return 1
    }
}
