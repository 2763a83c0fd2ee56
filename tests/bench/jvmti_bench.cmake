# fathom-bench-jvmti: the JVMTI agent's overhead against the plain run and JFR
# (see jvmti_overhead_bench.cc). Needs the agent and the Java workload built
# by tests/device/jvmti.
if(TARGET fathom_jvmti AND TARGET fathom_jvmti_workload)
  find_package(Java COMPONENTS Runtime)
  add_executable(fathom-bench-jvmti ${CMAKE_CURRENT_LIST_DIR}/jvmti_overhead_bench.cc)
  add_dependencies(fathom-bench-jvmti fathom_jvmti fathom_jvmti_workload)
  set(_jvmti_bench_args --java ${Java_JAVA_EXECUTABLE} --agent $<TARGET_FILE:fathom_jvmti>
      --classes ${CMAKE_BINARY_DIR}/tests/device/jvmti/classes)
  # Smoke run (tiny workload, one repetition): runs every configuration once.
  add_test(NAME bench_smoke_jvmti COMMAND fathom-bench-jvmti ${_jvmti_bench_args}
           --points 200000 --buffers 2000 --reps 1)
  set_tests_properties(bench_smoke_jvmti PROPERTIES TIMEOUT 40)
endif()
