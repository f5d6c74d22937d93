#ifndef CSANDBOXPROBE_H
#define CSANDBOXPROBE_H

// The raw metadata calls SandboxProbe makes as a target would (Swift's Glibc
// module has neither O_PATH nor the xattr calls). Each returns 0 or minus an errno.

/// How many calls name a path (or an O_PATH descriptor of it); their names.
int csp_path_call_count(void);
const char *csp_path_call_name(int call);
/// Call number `call` on `path`, giving owner `uid`:`gid` where it changes one.
int csp_path_call(int call, const char *path, unsigned uid, unsigned gid);

/// The same for descriptor calls, on a descriptor opened for reading.
int csp_descriptor_call_count(void);
const char *csp_descriptor_call_name(int call);
int csp_descriptor_call(int call, int fd, unsigned uid, unsigned gid);

/// 1 when `path` itself (not a link's target) carries CSP_ATTRIBUTE, else 0 (lgetxattr).
int csp_has_attack_attribute(const char *path);

/// The mode, times and attribute the calls write.
#define CSP_MODE 0777
#define CSP_SECONDS 1000000
#define CSP_ATTRIBUTE "user.appgroup.attack"

// Sockets (sockets.c), as a hostile target uses a presenting process's socket.
// Each returns a descriptor or count >= 0, or minus an errno.
#include <stddef.h>
/// A connected stream socket to `path` (blocking).
int csp_connect(const char *path);
/// A stream socket listening at `path` (bind fails when something is there).
int csp_listen_at(const char *path);
/// `path` opened as a directory for reading, or with O_PATH when `as_path`.
int csp_open_directory(const char *path, int as_path);
/// sendmsg of `length` bytes with `passed` beside them (SCM_RIGHTS) when >= 0.
long csp_send(int socket, const char *bytes, size_t length, int passed);
/// recv after at most `timeout_ms` (-ETIMEDOUT when nothing came).
long csp_receive(int fd, char *buffer, size_t capacity, int timeout_ms);
/// accept4 after at most `timeout_ms`.
int csp_accept(int listener, int timeout_ms);
/// The C name of an errno the socket commands report ("other" for the rest).
const char *csp_errno_name(int code);

#endif
