# hopsim_write_if_changed(<path> <text>): writes text into the file at path unless it already holds exactly that
# text. The generated headers (cmake/HopsimGitCommit.cmake, cmake/HopsimEmbedText.cmake) are produced at every build
# or every change of their input; a header left untouched keeps its timestamp, so nothing that includes it is
# recompiled.
function(hopsim_write_if_changed path text)
  set(old "")
  if(EXISTS "${path}")
    file(READ "${path}" old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE "${path}" "${text}")
  endif()
endfunction()
