// dupFd(fd) -> a new descriptor for the same open file, close-on-exec, numbered 3 or above.
// The PTY reader thread reads a pane's terminal through its own duplicate, so that closing its
// end (at the terminal's EOF, or when the pane goes) never closes node-pty's descriptor, and the
// reverse. Throws with the errno text when the kernel refuses.
//
// foregroundGroup(fd) -> the foreground process group of the terminal `fd` is the master of
// (tcgetpgrp), 0 when it has none, -1 when the kernel refuses. The agent detector asks every pane
// this on every tick; one ioctl costs a fraction of reading /proc/PID/stat for the same field.
//
// trimHeap() -> true when the C allocator gave memory back to the kernel. glibc's free() returns
// only the top of its heap, so buffers freed in the middle (a few hundred connections' half lines,
// a burst of pane output) stay in the daemon's RSS for good; malloc_trim(0) releases every whole
// free page. false, doing nothing, on a C library without it.
#include <node_api.h>
#include <stdbool.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/** The call's one descriptor argument; -1, with a TypeError saying `usage` thrown, when it has none. */
static int32_t FdArg(napi_env env, napi_callback_info info, const char* usage) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd = -1;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) {
    napi_throw_type_error(env, NULL, usage);
    return -1;
  }
  return fd;
}

static napi_value DupFd(napi_env env, napi_callback_info info) {
  int32_t fd = FdArg(env, info, "dupFd(fd): fd must be a descriptor number");
  napi_value out;
  if (fd < 0) return NULL;
  int d = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (d < 0) {
    napi_throw_error(env, NULL, strerror(errno));
    return NULL;
  }
  napi_create_int32(env, d, &out);
  return out;
}

static napi_value ForegroundGroup(napi_env env, napi_callback_info info) {
  int32_t fd = FdArg(env, info, "foregroundGroup(fd): fd must be a descriptor number");
  napi_value out;
  if (fd < 0) return NULL;
  pid_t p = tcgetpgrp(fd);
  napi_create_int32(env, p < 0 ? -1 : (int32_t)p, &out);
  return out;
}

static napi_value TrimHeap(napi_env env, napi_callback_info info) {
  (void)info;
  bool released = false;
#ifdef __GLIBC__
  released = malloc_trim(0) == 1;
#endif
  napi_value out;
  napi_get_boolean(env, released, &out);
  return out;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "dupFd", NAPI_AUTO_LENGTH, DupFd, NULL, &fn);
  napi_set_named_property(env, exports, "dupFd", fn);
  napi_create_function(env, "foregroundGroup", NAPI_AUTO_LENGTH, ForegroundGroup, NULL, &fn);
  napi_set_named_property(env, exports, "foregroundGroup", fn);
  napi_create_function(env, "trimHeap", NAPI_AUTO_LENGTH, TrimHeap, NULL, &fn);
  napi_set_named_property(env, exports, "trimHeap", fn);
  return exports;
}
