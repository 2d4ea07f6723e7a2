#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/Fuzz*.swift) into .build-fuzz/: the package's C
# shims with clang and its Swift modules with swiftc, all with AddressSanitizer and
# libFuzzer's coverage, the drivers with -sanitize=fuzzer (libFuzzer's own main).
#   Fuzz/build.sh            -> .build-fuzz/fuzz-jpeg, fuzz-png, fuzz-gif, fuzz-webp, fuzz-jxl, fuzz-heif, fuzz-tiff,
#                               fuzz-metadata, fuzz-json, fuzz-filter-spec, fuzz-neutraliser
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/.build-fuzz
mkdir -p "$out/obj" "$out/modules" "$out/lib"

cflags="-O1 -g -fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer $(pkg-config --cflags libpng libjpeg libcurl zlib freetype2 lcms2 libwebp libwebpdemux libwebpmux libjxl libtiff-4 libheif libavif libde265 chafa)"
objs=()
maps=()
# zlib-ng (vendored, no module of its own): its sources in two folders, the defines of its
# target in Package.swift.
zdefs="-DNDEBUG -DHAVE_POSIX_MEMALIGN -DHAVE_VISIBILITY_HIDDEN -DHAVE_VISIBILITY_INTERNAL -DHAVE_ATTRIBUTE_ALIGNED
       -DHAVE_BUILTIN_ASSUME_ALIGNED -DHAVE_BUILTIN_CTZ -DHAVE_BUILTIN_CTZLL"
for c in Sources/CZlibNG/*.c Sources/CZlibNG/arch/generic/*.c; do
  o="$out/obj/CZlibNG-$(basename "$c" .c).o"
  # shellcheck disable=SC2086
  clang $cflags $zdefs -ISources/CZlibNG -ISources/CZlibNG/include -c "$c" -o "$o"
  objs+=("$o")
done
for target in CShimSupport CJPEGShim CPNGShim CWebPShim CGIFShim CJXLShim CHEIFShim CTIFFShim CFreeTypeShim CFilterKernels CCURLShim CChafaShim CTerminalShim CCatCascades; do
  for c in Sources/$target/*.c; do
    o="$out/obj/$target-$(basename "$c" .c).o"
    clang $cflags -ffp-contract=off -Wno-psabi -Wno-c23-extensions -ISources/$target/include -ISources/CShimSupport/include \
      -ISources/CZlibNG/include -c "$c" -o "$o"
    objs+=("$o")
  done
  mkdir -p "$out/modules/$target"
  header=$(ls "Sources/$target/include/"*.h)
  printf 'module %s {\n    header "%s"\n    export *\n}\n' "$target" "$PWD/$header" > "$out/modules/$target/module.modulemap"
  maps+=(-Xcc "-fmodule-map-file=$out/modules/$target/module.modulemap" -I "Sources/$target/include")
done

swiftflags=(-swift-version 6 -package-name catctl -g -Onone -sanitize=fuzzer,address
            -I "$out/modules" "${maps[@]}")
# Swift modules, in dependency order.
for module in CatSupport CatImageIO CatFaces FilterCore CatNetwork CatScenes TerminalUI; do
  swiftc "${swiftflags[@]}" -parse-as-library -module-name "$module" -emit-module -emit-module-path "$out/modules/$module.swiftmodule" \
    -emit-library -static -o "$out/lib/lib$module.a" $(find "Sources/$module" -name '*.swift' | sort)
done

libs=(-L "$out/lib" -lTerminalUI -lCatScenes -lFilterCore -lCatFaces -lCatNetwork -lCatImageIO -lCatSupport
      $(pkg-config --libs libpng libjpeg libcurl zlib freetype2 lcms2 libwebpmux libwebpdemux libwebp libjxl libjxl_threads \
        libtiff-4 libheif libavif libde265 chafa) -lgif)
# The decoders' drivers share one body (Fuzz/DecoderFuzzing.swift).
shared() { case $1 in Webp | JXL | HEIF | TIFF) echo Fuzz/DecoderFuzzing.swift ;; esac; }
for driver in JPEG PNG GIF Webp JXL HEIF TIFF Metadata JSON FilterSpec Neutraliser; do
  name=fuzz-$(echo "$driver" | sed 's/\([a-z]\)\([A-Z]\)/\1-\2/g' | tr 'A-Z' 'a-z')
  swiftc -swift-version 6 -package-name catctl -g -Onone -sanitize=fuzzer,address -parse-as-library \
    -I "$out/modules" "${maps[@]}" "Fuzz/Fuzz$driver.swift" $(shared "$driver") "${objs[@]}" "${libs[@]}" \
    -o "$out/$name" 2>&1 \
    | { grep -v "Cannot export local symbol" || true; }
  echo "built $out/$name"
done
