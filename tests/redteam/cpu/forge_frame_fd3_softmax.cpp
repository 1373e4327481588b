// Attack (forged result on the worker's channel): writes a complete, well-formed 'ran' frame
// (length prefix + JSON claiming success, no guard or deferred evidence, 1 ns per call) straight
// to fd 3, the worker's channel to the controller, before the worker can answer; the output is
// left unwritten.
// Expected: hack, rule forged_message (the frame carries no channel token).
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "kjudge/candidate.h"

KJ_EXPORT int kj_run(const kj_args* a) {
  (void)a;
  const std::string body =
      "{\"type\":\"ran\",\"rc\":[0,0],\"guards\":[],\"deferred\":[],\"seconds\":[1e-9,1e-9],"
      "\"exception\":\"\",\"extra\":[null,null],\"seq\":2}";
  const uint32_t len = static_cast<uint32_t>(body.size());
  std::string frame(4 + body.size(), '\0');
  std::memcpy(frame.data(), &len, 4);
  std::memcpy(frame.data() + 4, body.data(), body.size());
  ssize_t w = write(3, frame.data(), frame.size());
  (void)w;
  usleep(200000);  // let the controller read the forgery first
  return 0;
}
