#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/Fuzz*.swift) into .build-fuzz/: the package's C
# shims with clang and its Swift modules with swiftc, all with AddressSanitizer and
# libFuzzer's coverage, the drivers with -sanitize=fuzzer (libFuzzer's own main).
#   Fuzz/build.sh            -> .build-fuzz/fuzz-<target> for every target of Fuzz/targets
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/.build-fuzz
mkdir -p "$out/obj" "$out/modules" "$out/lib"

# The C libraries' pkg-config modules (scripts/libraries; giflib has none: -lgif).
modules=$(grep -v '^#' scripts/libraries | awk '$1 != "-" { print $1 }' | tr ',\n' '  ')
# shellcheck disable=SC2086
cflags="-O1 -g -fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer $(pkg-config --cflags $modules)"
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
for target in CShimSupport CJPEGShim CPNGShim CWebPShim CGIFShim CJXLShim CHEIFShim CTIFFShim CTextShim \
  CKernelDispatch CFilterKernels CCatDetectors CCatModels CCURLShim CChafaShim CTerminalShim; do
  for c in Sources/$target/*.c; do
    o="$out/obj/$target-$(basename "$c" .c).o"
    clang $cflags -ffp-contract=off -Wno-psabi -Wno-c23-extensions -ISources/$target/include -ISources/CShimSupport/include \
      -ISources/CZlibNG/include -ISources/CKernelDispatch/include -ISources/CFilterKernels/include -c "$c" -o "$o"
    objs+=("$o")
  done
  map="$out/modules/$target/module.modulemap"
  mkdir -p "$out/modules/$target"
  if [ -f "Sources/$target/include/module.modulemap" ]; then
    map="$PWD/Sources/$target/include/module.modulemap"  # the target's own (CKernelDispatch)
  else
    # Every public header of the target, as SwiftPM's umbrella directory takes them.
    { printf 'module %s {\n' "$target"
      for header in "Sources/$target/include/"*.h; do printf '    header "%s"\n' "$PWD/$header"; done
      printf '    export *\n}\n'; } > "$map"
  fi
  maps+=(-Xcc "-fmodule-map-file=$map" -I "Sources/$target/include")
done

swiftflags=(-swift-version 6 -package-name catctl -g -Onone -sanitize=fuzzer,address
            -I "$out/modules" "${maps[@]}")
# Swift modules, in dependency order.
for module in CatSupport CatPixels CatNetwork CatImageIO CatModels CatFaces FilterCore CatScenes TerminalUI; do
  rm -f "$out/lib/lib$module.a"  # an archive keeps the members of files since deleted
  swiftc "${swiftflags[@]}" -parse-as-library -module-name "$module" -emit-module -emit-module-path "$out/modules/$module.swiftmodule" \
    -emit-library -static -o "$out/lib/lib$module.a" $(find "Sources/$module" -name '*.swift' | sort)
done

libs=(-L "$out/lib" -lTerminalUI -lCatScenes -lFilterCore -lCatFaces -lCatModels -lCatImageIO -lCatNetwork -lCatPixels -lCatSupport
      $(pkg-config --libs $modules) -lgif)
# The decoders' drivers share one body (Fuzz/DecoderFuzzing.swift), the cat targets one
# picture maker (Fuzz/PictureFuzzing.swift), each compiled beside a driver that uses it.
shared() {
  ! grep -q fuzzDecoder "Fuzz/Fuzz$1.swift" || echo Fuzz/DecoderFuzzing.swift
  ! grep -q fuzzPicture "Fuzz/Fuzz$1.swift" || echo Fuzz/PictureFuzzing.swift
}
grep -v '^#' Fuzz/targets | while read -r target driver _; do
  name=fuzz-$target
  swiftc -swift-version 6 -package-name catctl -g -Onone -sanitize=fuzzer,address -parse-as-library \
    -I "$out/modules" "${maps[@]}" "Fuzz/Fuzz$driver.swift" $(shared "$driver") "${objs[@]}" "${libs[@]}" \
    -o "$out/$name" 2>&1 \
    | { grep -v "Cannot export local symbol" || true; }
  echo "built $out/$name"
done
