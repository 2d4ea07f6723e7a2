#!/usr/bin/env python3
"""Writes Tests/Fixtures/metadata/: images that carry metadata, for the tests that check
catctl keeps (or strips) it, and a CMYK JPEG with an ICC profile.

  wide-rgb.icc, warm-cmyk.icc   made by tools/make_icc.c with lcms2 (run first when absent):
                                an RGB profile with Adobe RGB (1998) primaries, ~80 KB (a JPEG
                                splits it over two APP2 segments), and a CMYK profile whose
                                table is the naive formula with a warm cast
  meta.jpg                      photos/chelsea.png at 97x61 (LANCZOS), quality 92, with
                                wide-rgb.icc, EXIF (Orientation 6, Artist, Copyright), an XMP
                                packet and a comment; stored sideways, so it shows 61x97
  meta.png                      the same pixels upright-as-stored (97x61) as PNG: iCCP, eXIf
                                (Orientation 1, Artist, Copyright), iTXt XML:com.adobe.xmp and
                                tEXt Comment
  cmyk-icc.jpg                  the same 97x61 picture as CMYK (Pillow's conversion) with
                                warm-cmyk.icc embedded
  cmyk-icc.expected.png         Pillow's decode of cmyk-icc.jpg converted to sRGB through the
                                embedded profile with Pillow's lcms2 binding: relative
                                colorimetric with black point compensation (what catctl does)

Written with Pillow 13.0.0. Idempotent: run `python3 Tests/Fixtures/make_metadata_fixtures.py`.
"""
import io
import os
import subprocess
import sys

from PIL import Image, ImageCms, PngImagePlugin

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "metadata")
XMP = (b'<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?>'
       b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
       b'<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:format="image/jpeg">'
       b'<dc:creator><rdf:Seq><rdf:li>catctl tests</rdf:li></rdf:Seq></dc:creator>'
       b'</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>')
COMMENT = b"Chelsea the cat, CC0"


def profiles():
    if not all(os.path.exists(os.path.join(OUT, n)) for n in ("wide-rgb.icc", "warm-cmyk.icc")):
        tool = os.path.join(OUT, "make_icc")
        subprocess.check_call(["cc", "-O2", os.path.join(HERE, "tools", "make_icc.c"), "-llcms2", "-o", tool])
        subprocess.check_call([tool, OUT])
        os.remove(tool)
    return tuple(open(os.path.join(OUT, n), "rb").read() for n in ("wide-rgb.icc", "warm-cmyk.icc"))


def exif(orientation):
    e = Image.Exif()
    e[0x0112] = orientation
    e[0x013B] = "catctl tests"  # Artist
    e[0x8298] = "CC0"  # Copyright
    return e.tobytes()


def main():
    os.makedirs(OUT, exist_ok=True)
    wide, warm = profiles()
    cat = Image.open(os.path.join(HERE, "photos", "chelsea.png")).convert("RGB").resize((97, 61), Image.LANCZOS)
    cat.save(os.path.join(OUT, "meta.jpg"), quality=92, icc_profile=wide, exif=exif(6), xmp=XMP, comment=COMMENT)
    info = PngImagePlugin.PngInfo()
    info.add_itxt("XML:com.adobe.xmp", XMP.decode("utf-8"))
    info.add_text("Comment", COMMENT.decode("latin-1"))
    cat.save(os.path.join(OUT, "meta.png"), icc_profile=wide, exif=exif(1), pnginfo=info)
    cmyk = cat.convert("CMYK")
    cmyk.save(os.path.join(OUT, "cmyk-icc.jpg"), quality=95, icc_profile=warm)
    decoded = Image.open(os.path.join(OUT, "cmyk-icc.jpg"))
    assert decoded.mode == "CMYK" and decoded.info.get("icc_profile") == warm
    rgb = ImageCms.profileToProfile(
        decoded, ImageCms.ImageCmsProfile(io.BytesIO(warm)), ImageCms.createProfile("sRGB"),
        renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC, outputMode="RGB",
        flags=ImageCms.Flags.BLACKPOINTCOMPENSATION)
    rgb.save(os.path.join(OUT, "cmyk-icc.expected.png"))
    print("wrote", sorted(os.listdir(OUT)), file=sys.stderr)


if __name__ == "__main__":
    main()
