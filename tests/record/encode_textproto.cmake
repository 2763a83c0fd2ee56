# cmake -DPROTOC=... -DPROTO_DIR=... -DIN=x.textproto -DOUT=x.pb -P encode_textproto.cmake
# protoc --encode reads stdin and writes stdout; execute_process redirects
# portably (no shell needed).
execute_process(
  COMMAND "${PROTOC}" --encode=perfetto.protos.Trace -I "${PROTO_DIR}" perfetto/trace/trace.proto
  INPUT_FILE "${IN}" OUTPUT_FILE "${OUT}" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUT}")
  message(FATAL_ERROR "${IN}: protoc --encode failed: ${err}")
endif()
