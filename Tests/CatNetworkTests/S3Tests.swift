import CatSupport
import Testing

@testable import CatNetwork

@Suite("S3: locations, URLs, settings and replies")
struct S3Tests {
    @Test func locationsAreTakenAsWritten() throws {
        let object = try S3Location("s3://cats/in/a b+c%20é.jpg")
        #expect(object.bucket == "cats" && object.key == "in/a b+c%20é.jpg" && !object.isPrefix)
        #expect(try S3Location("s3://cats").isPrefix && S3Location("s3://cats/").key == "")
        #expect(try S3Location("s3://cats/in/").contains(S3Location("s3://cats/in/out/x.jpg")))
        #expect(try !S3Location("s3://cats/in/").contains(S3Location("s3://dogs/in/x.jpg")))
        for bad in [
            "s3://", "s3://ab/x", "s3://-cats/x", "s3://ca/ts/x", "s3://c@ts/x", "http://cats/x",
            "s3://" + String(repeating: "a", count: 64) + "/x", "s3://cats/" + String(repeating: "k", count: 1025),
            "s3://cats/a/../../other/x.jpg", "s3://cats/./x.jpg", "s3://cats/in/..", "s3://cats/../x",
        ] {
            #expect(throws: S3Error.self, "\(bad)") { try S3Location(bad) }
        }
    }

    /// An object is never written over itself unless forced, however its scheme is spelt;
    /// refused before any request (no credentials are set here).
    @Test func anOutputThatIsItsInputIsRefused() throws {
        for input in ["s3://cats/k.png", "S3://cats/k.png"] {
            #expect(throws: StorageError.outputIsInput(path: "s3://cats/k.png"), "\(input)") {
                try S3Store().prepare("s3://cats/k.png", input: input, force: false, within: nil, mediaType: nil)
            }
        }
    }

    @Test func urlsAreEncodedAndQueriesSortedAsSigV4Wants() throws {
        var settings = S3Settings(accessKey: "k", secretKey: "s", endpoint: "http://127.0.0.1:9000")
        let client = S3Client(settings: settings)
        let object = try S3Location("s3://cats/in/a b+c%/é~.jpg")
        #expect(client.url(object) == "http://127.0.0.1:9000/cats/in/a%20b%2Bc%25/%C3%A9~.jpg")
        let listing = client.url(
            S3Location(bucket: "cats", key: ""),
            query: [
                ("prefix", "in/a b"), ("list-type", "2"), ("continuation-token", "x/y=="), ("encoding-type", "url"),
            ])
        #expect(
            listing
                == "http://127.0.0.1:9000/cats?continuation-token=x%2Fy%3D%3D&encoding-type=url&list-type=2&prefix=in%2Fa%20b"
        )
        #expect(client.url(object, query: [("uploads", "")]).hasSuffix("?uploads="))
        // AWS itself: virtual-hosted, unless the name is no host name.
        settings.endpoint = nil
        settings.region = "eu-west-1"
        let aws = S3Client(settings: settings)
        #expect(aws.url(S3Location(bucket: "cats", key: "a.jpg")) == "https://cats.s3.eu-west-1.amazonaws.com/a.jpg")
        #expect(
            aws.url(S3Location(bucket: "my.cats", key: "a.jpg")) == "https://s3.eu-west-1.amazonaws.com/my.cats/a.jpg")
    }

    @Test func listedKeysAreDecoded() {
        #expect(S3Location.decodeListed("in/a+b%2Bc%25%C3%A9.jpg") == "in/a b+c%é.jpg")
        #expect(S3Location.decodeListed("bad%zzend%4") == "bad%zzend%4")
        #expect(S3Location.decodeListed("sign%+1%-1") == "sign% 1%-1", "no sign inside %XX (and + is a space)")
        // A listed key with a dot segment is never taken (the server would resolve it elsewhere).
        let page = try? S3ListPage(
            reply: Array(
                "<ListBucketResult><Name>c</Name><Contents><Key>a/../b.jpg</Key></Contents><Contents><Key>ok.jpg</Key></Contents></ListBucketResult>"
                    .utf8),
            bucket: "cats", shown: "s3://cats/")
        #expect(page?.objects.map(\.location.key) == ["ok.jpg"])
    }

    @Test func settingsComeFromTheUsualVariables() throws {
        let base = ["AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": "secret"]
        let plain = try S3Settings.fromEnvironment(base)
        #expect(plain.region == "us-east-1" && plain.endpoint == nil && plain.partSize == S3Settings.defaultPartSize)
        let custom = try S3Settings.fromEnvironment(
            base.merging([
                "AWS_DEFAULT_REGION": "eu-central-1", "AWS_ENDPOINT_URL": "http://x:1/",
                "AWS_ENDPOINT_URL_S3": "http://s3:2/",
                "AWS_SESSION_TOKEN": "tok", "CATCTL_S3_PART_SIZE": String(8 << 20), "CATCTL_S3_RETRIES": "0",
            ]) { $1 })
        #expect(custom.region == "eu-central-1" && custom.endpoint == "http://s3:2" && custom.sessionToken == "tok")
        #expect(custom.partSize == 8 << 20 && custom.http.retries == 0)
        for broken in [
            ["AWS_SECRET_ACCESS_KEY": ""], ["AWS_ACCESS_KEY_ID": "a:b"], ["AWS_SECRET_ACCESS_KEY": "line\nbreak"],
            ["AWS_SESSION_TOKEN": "t\r\nX-Evil: 1"], ["AWS_ENDPOINT_URL": "ftp://x"], ["AWS_REGION": "../x"],
            ["CATCTL_S3_PART_SIZE": "1024"], ["CATCTL_S3_STALL_SECONDS": "0"], ["CATCTL_S3_RETRIES": "99"],
        ] {
            #expect(throws: S3Error.self, "\(broken)") { try S3Settings.fromEnvironment(base.merging(broken) { $1 }) }
        }
        // No message holds a secret.
        do {
            _ = try S3Settings.fromEnvironment(base.merging(["AWS_SECRET_ACCESS_KEY": "s3cr3t\u{7}"]) { $1 })
        } catch {
            #expect(!error.description.contains("s3cr3t"))
        }
    }

    @Test func repliesAreReadForWhatTheyHold() {
        let listing = S3XML(
            Array(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>cats</Name>
                <Contents><Key>a&amp;b.jpg</Key><Size>10</Size></Contents><!-- <Key>no</Key> -->
                <Contents><Key><![CDATA[c<d.jpg]]></Key><Size>20</Size></Contents>
                <IsTruncated>true</IsTruncated><NextContinuationToken>t&#x2F;1&#47;</NextContinuationToken>
                </ListBucketResult>
                """.utf8))
        #expect(listing.all("Key") == ["a&b.jpg", "c<d.jpg"])
        #expect(listing.first("IsTruncated") == "true" && listing.first("NextContinuationToken") == "t/1/")
        let keys = listing.elements.filter { $0.name == "Key" }, sizes = listing.elements.filter { $0.name == "Size" }
        #expect(keys.map(\.parent) == sizes.map(\.parent) && keys[0].parent != keys[1].parent)
        let error = S3XML(Array("<Error><Code>NoSuchKey</Code><Message>gone</Message></Error>".utf8))
        #expect(error.first("Code") == "NoSuchKey" && error.first("Message") == "gone")
        // Nonsense ends, bounded: unclosed tags, deep nesting, a stray ">".
        #expect(S3XML(Array("<a><b><c>text".utf8)).elements.isEmpty)
        #expect(S3XML(Array(String(repeating: "<a>", count: 100_000).utf8)).elements.isEmpty)
        #expect(S3XML(Array("x > y <Code>1</Code>".utf8)).first("Code") == "1")
    }

    @Test func failuresAreSortedByWhatAnEngineDoes() {
        func kind(_ status: Int, _ code: String) -> S3Error.Kind {
            S3Client.failure(status: status, code: code, message: "", "s3://c/k").kind
        }
        #expect(kind(403, "SignatureDoesNotMatch") == .credentials)
        #expect(kind(403, "InvalidAccessKeyId") == .credentials)
        #expect(kind(400, "ExpiredToken") == .credentials)
        #expect(kind(404, "NoSuchBucket") == .missing && kind(404, "NoSuchKey") == .missing)
        #expect(kind(503, "SlowDown") == .transient && kind(500, "") == .transient && kind(429, "") == .transient)
        #expect(kind(400, "RequestTimeout") == .transient)
        #expect(kind(412, "PreconditionFailed") == .exists)
        #expect(kind(400, "InvalidArgument") == .refused)
    }
}

@Suite("S3 limits say what happened")
struct S3LimitWordingTests {
    @Test func aBodyCutAtTheLimitIsNotSaidToBeAnnounced() {
        let cut = S3Error.tooLarge(location: "s3://b/k", bytes: nil, limit: 10).description
        #expect(!cut.contains("announce") && cut.contains("stopped"), "\(cut)")
        let announced = S3Error.tooLarge(location: "s3://b/k", bytes: 99, limit: 10).description
        #expect(announced.contains("99 bytes as S3 announces it"), "\(announced)")
    }

    /// Finding 7: the scanner says when it stopped at its bound, and a listing page then fails.
    @Test func aPageCutAtTheElementBoundIsRefused() {
        var xml = "<ListBucketResult><Name>b</Name>"
        for i in 0..<(S3XML.maxElements + 1) { xml += "<Contents><Key>\(i)</Key></Contents>" }
        xml += "<IsTruncated>true</IsTruncated><NextContinuationToken>x</NextContinuationToken></ListBucketResult>"
        let bytes = Array(xml.utf8)
        #expect(S3XML(bytes).cut)
        #expect(throws: S3Error.self) { try S3ListPage(reply: bytes, bucket: "b", shown: "s3://b/") }
        #expect(!S3XML(Array("<a><b>1</b></a>".utf8)).cut)
    }
}
