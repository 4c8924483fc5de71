# hcube_to_bytes(TEXT OUT_VAR SCRATCH): TEXT as a C++ byte list "0x3c,0x21,...",
# 16 to a line, in OUT_VAR and its length in OUT_VAR_size, for the build steps
# that embed files (EmbedPage.cmake, EmbedFiles.cmake). Byte arrays, not string
# literals: MSVC caps a literal at 16 KiB and a concatenation at 64 KiB.
# file(READ HEX) reads a file, so the text goes through SCRATCH.
function(hcube_to_bytes text out_var scratch)
  file(WRITE "${scratch}" "${text}")
  file(READ "${scratch}" hex HEX)
  file(REMOVE "${scratch}")
  string(LENGTH "${hex}" n)
  math(EXPR count "${n} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  # CMake's regular expressions have no {16}: the pattern is spelt out.
  string(REPEAT "0x[0-9a-f][0-9a-f]," 16 sixteen)
  string(REGEX REPLACE "(${sixteen})" "\\1\n" hex "${hex}")
  set(${out_var} "${hex}" PARENT_SCOPE)
  set(${out_var}_size ${count} PARENT_SCOPE)
endfunction()
