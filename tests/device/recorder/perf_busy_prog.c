/* A program that keeps one CPU busy in a known call chain for the recorder's CPU
 * sampling test: main -> perf_busy_middle -> perf_busy_leaf. Built with frame pointers
 * in every function (leaves too: built -O0), so the kernel's frame-pointer walk sees each
 * caller.
 * Prints its pid, then spins for argv[1] milliseconds. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

volatile double perf_busy_sink;

__attribute__((noinline)) double perf_busy_leaf(int n) {
  double s = 0;
  for (int i = 0; i < n; i++) perf_busy_sink = s += i * 0.5;
  return s;
}

__attribute__((noinline)) double perf_busy_middle(int n) { return perf_busy_leaf(n) + 1; }

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char** argv) {
  double ms = argc > 1 ? atof(argv[1]) : 2000;
  printf("%d\n", (int)getpid());
  fflush(stdout);
  double end = now_ms() + ms;
  while (now_ms() < end) perf_busy_sink = perf_busy_middle(100000);
  return 0;
}
