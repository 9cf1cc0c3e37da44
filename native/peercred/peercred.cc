// getPeerCred(fd) -> { pid, uid, gid } for a connected Unix socket, from the kernel's record of
// the peer at connect time (SO_PEERCRED on Linux, LOCAL_PEERPID/getpeereid on macOS). Nothing the
// peer sends can change it. Throws on a descriptor that is not such a socket.
#include <napi.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#include <errno.h>
#include <string.h>
#ifdef __APPLE__
#include <sys/un.h>
#include <sys/ucred.h>
#endif

static Napi::Value GetPeerCred(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) {
    Napi::TypeError::New(env, "getPeerCred(fd): fd must be a number").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  int fd = info[0].As<Napi::Number>().Int32Value();
  Napi::Object out = Napi::Object::New(env);
#if defined(__linux__)
  struct ucred cred;
  socklen_t len = sizeof(cred);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    Napi::Error::New(env, strerror(errno)).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  out.Set("pid", Napi::Number::New(env, cred.pid));
  out.Set("uid", Napi::Number::New(env, cred.uid));
  out.Set("gid", Napi::Number::New(env, cred.gid));
#elif defined(__APPLE__)
  uid_t uid; gid_t gid;
  if (getpeereid(fd, &uid, &gid) != 0) {
    Napi::Error::New(env, strerror(errno)).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  pid_t pid = 0;
  socklen_t len = sizeof(pid);
  if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, &pid, &len) != 0) pid = 0;
  out.Set("pid", Napi::Number::New(env, pid));
  out.Set("uid", Napi::Number::New(env, uid));
  out.Set("gid", Napi::Number::New(env, gid));
#else
  Napi::Error::New(env, "peer credentials are not supported on this platform").ThrowAsJavaScriptException();
  return env.Undefined();
#endif
  return out;
}

static Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("getPeerCred", Napi::Function::New(env, GetPeerCred));
  return exports;
}

NODE_API_MODULE(peercred, Init)
