/*
 * A failing disk for tests of the state file, loaded into a process with LD_PRELOAD: while the
 * file FAIL_SYNC_FLAG holds a number n > 0, the next n calls of fsync or fdatasync on a file whose
 * path contains FAIL_SYNC_MATCH fail with EIO (each decrements n), as a disk does that cannot
 * persist what was written: the data stays in the page cache, the sync reports the failure.
 * Built by test/support/failing-disk.ts.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fails(int fd) {
  const char *flag = getenv("FAIL_SYNC_FLAG");
  const char *match = getenv("FAIL_SYNC_MATCH");
  if (!flag || !match) return 0;
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t length = readlink(link, path, sizeof path - 1);
  if (length < 0) return 0;
  path[length] = 0;
  if (!strstr(path, match)) return 0;
  FILE *file = fopen(flag, "r+");
  if (!file) return 0;
  long left = 0;
  if (fscanf(file, "%ld", &left) != 1 || left <= 0) {
    fclose(file);
    return 0;
  }
  rewind(file);
  fprintf(file, "%-20ld", left - 1);
  fclose(file);
  return 1;
}

int fsync(int fd) {
  static int (*real)(int);
  if (fails(fd)) {
    errno = EIO;
    return -1;
  }
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  return real(fd);
}

int fdatasync(int fd) {
  static int (*real)(int);
  if (fails(fd)) {
    errno = EIO;
    return -1;
  }
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  return real(fd);
}
