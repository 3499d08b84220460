# sparsity_add_qtest(<dotted.name> SOURCES ... [LIBS ...] [LABELS ...] [ENV ...])
# One Qt Test executable per file; CTest name is dotted and labelled (ctest -L core).
function(sparsity_add_qtest name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS;ENV" ${ARGN})
  string(REPLACE "." "_" target "tst_${name}")
  add_executable(${target} ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Qt6::Test ${ARG_LIBS} sparsity_warnings sparsity_options)
  target_compile_definitions(${target} PRIVATE
    SPARSITY_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data"
    SPARSITY_SAMPLE_DIR="${PROJECT_SOURCE_DIR}/resources/samples"
    SPARSITY_EXAMPLES_DIR="${PROJECT_SOURCE_DIR}/resources/examples")
  add_test(NAME ${name} COMMAND ${target})
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}"
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen;OMP_NUM_THREADS=2;${ARG_ENV}")
endfunction()
