// libFuzzer target: S3's XML replies (a ListObjectsV2 page), untrusted server text read by
// catctl's own small scanner (CatNetwork/S3/S3XML.swift).
import CatNetwork
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzS3Listing(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let page = try? S3ListPage(reply: bytes, bucket: "cats", shown: "s3://cats/") {
        precondition(page.objects.count <= size, "more objects than bytes")
        for object in page.objects {
            precondition(object.location.bucket == "cats" && !object.location.key.isEmpty, "a key from nothing")
            precondition(object.location.key.utf8.count <= 1024, "a key over S3's 1024 bytes")
        }
        precondition(page.nextToken.map { !$0.isEmpty && $0.utf8.count <= 4096 } ?? true, "an unbounded token")
    }
    return 0
}
