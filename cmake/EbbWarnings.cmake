# Warnings are errors everywhere; sanitizers when EBB_SANITIZE is on; the
# fuzzers' coverage and the sanitizers on everything when EBB_FUZZ is on.
# Optimised builds also fortify (as Ubuntu's gcc does by default, on the GPU
# machine), so an ignored result that glibc marks fails here first.
function(ebb_target_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes>
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Werror -Wshadow>
    $<$<AND:$<CONFIG:Release>,$<COMPILE_LANGUAGE:C,CXX>>:-U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=2>)
endfunction()

if(EBB_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

if(EBB_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang" OR NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "EBB_FUZZ=ON needs clang (libFuzzer): configure with the fuzz preset, "
      "or CC=clang CXX=clang++ (Debian: clang)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
    -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
