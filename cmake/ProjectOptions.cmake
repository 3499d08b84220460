# Build options shared by every first-party target, linked PRIVATE (never exported).
option(SPARSITY_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(SPARSITY_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" OFF)

add_library(sparsity_warnings INTERFACE)
target_compile_options(sparsity_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Woverloaded-virtual -Wconversion -Wsign-conversion
    -Wnull-dereference -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${SPARSITY_WARNINGS_AS_ERRORS}>>:-Werror>)
# GCC 12's -Wrestrict reports std::string's own concatenations at -O2 (libstdc++'s
# char_traits::copy "accessing 9223372036854775810 or more bytes"; GCC bug 105329, fixed in
# GCC 13): a false positive in the library, not in our code.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(sparsity_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
endif()

add_library(sparsity_options INTERFACE)
if(SPARSITY_SANITIZE)
  target_compile_options(sparsity_options INTERFACE
    $<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined>)
  # Executables are linked at a fixed address: a sanitized Debug executable carries about two
  # million relative relocations (ASan's and UBSan's metadata), and as a PIE resolving them took
  # 0.15 of the CLI's 0.36 s start; the CLI tests start it about a thousand times. The objects
  # stay position independent (-fPIC), as Qt requires.
  target_link_options(sparsity_options INTERFACE -fsanitize=address,undefined
    $<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>:-no-pie>)
endif()

# libFuzzer targets (tests/fuzz), clang only. The first-party code gets coverage
# instrumentation plus ASan/UBSan; the fuzz executables add libFuzzer's main (tests/fuzz).
option(SPARSITY_FUZZ "Build the libFuzzer targets under tests/fuzz (clang only)" OFF)
if(SPARSITY_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SPARSITY_FUZZ needs clang (libFuzzer); use the 'fuzz' preset")
  endif()
  target_compile_options(sparsity_options INTERFACE
    $<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
      -fno-sanitize-recover=undefined>)
  target_link_options(sparsity_options INTERFACE -fsanitize=address,undefined)
endif()
