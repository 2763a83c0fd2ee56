// Allocates known amounts along known call paths, for the JVMTI agent test and
// bench. Usage: java AllocWorkload POINTS BUFFERS CLONES [WORKERS [LINGER_MS]]
//   POINTS  Point objects (2 ints, 24 bytes on 64-bit HotSpot) from makePoints, main thread
//   BUFFERS byte[1000] arrays from fillBuffers, on thread "alloc-worker" (with
//           WORKERS > 1: BUFFERS each on threads "alloc-worker-0".."-N")
//   CLONES  int[16] clones from cloneArrays (interpreted clone() is a VM allocation,
//           which HotSpot reports through VMObjectAlloc)
//   LINGER_MS (WORKERS 1 only) sleep this long after allocating, before the summary
//           line: a test kills the VM meanwhile, so it dies without VMDeath
// Every object is stored into a sink so escape analysis cannot remove it.
public class AllocWorkload {
  static final class Point {
    int x, y;
    Point(int x, int y) { this.x = x; this.y = y; }
  }

  static final Object[] sink = new Object[4096];
  static volatile long checksum;

  static void makePoints(int n) {
    long sum = 0;
    for (int i = 0; i < n; i++) {
      Point p = new Point(i, i + 1);
      sink[i & 4095] = p;
      sum += p.x;
    }
    checksum += sum;
  }

  static void fillBuffers(int n) {
    Object[] local = new Object[1024];
    for (int i = 0; i < n; i++) {
      byte[] b = new byte[1000];
      b[i % 1000] = (byte) i;
      local[i & 1023] = b;
    }
    sink[1] = local;
  }

  static void cloneArrays(int n) {
    int[] src = new int[16];
    Object[] local = new Object[256];
    for (int i = 0; i < n; i++) local[i & 255] = src.clone();
    sink[2] = local;
  }

  public static void main(String[] args) throws Exception {
    final int points = Integer.parseInt(args[0]);
    final int buffers = Integer.parseInt(args[1]);
    final int clones = Integer.parseInt(args[2]);
    final int workers = args.length > 3 ? Integer.parseInt(args[3]) : 1;
    final int lingerMs = args.length > 4 ? Integer.parseInt(args[4]) : 0;
    if (workers > 1) {  // many threads sampling at once: exercises the agent's locking
      Thread[] ts = new Thread[workers];
      for (int i = 0; i < workers; i++) {
        ts[i] = new Thread(() -> fillBuffers(buffers), "alloc-worker-" + i);
        ts[i].start();
      }
      makePoints(points);
      for (Thread t : ts) t.join();
      System.out.println("elapsed_ms=0 cpu_ms=0 checksum=" + checksum);
      return;
    }
    final java.lang.management.ThreadMXBean mx =
        java.lang.management.ManagementFactory.getThreadMXBean();
    final long[] workerCpu = new long[1];
    Thread worker = new Thread(() -> {
      long c0 = mx.getCurrentThreadCpuTime();
      fillBuffers(buffers);
      workerCpu[0] = mx.getCurrentThreadCpuTime() - c0;
    }, "alloc-worker");
    long c0 = mx.getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    worker.start();
    makePoints(points);
    cloneArrays(clones);
    long mainCpu = mx.getCurrentThreadCpuTime() - c0;
    worker.join();
    long t1 = System.nanoTime();
    if (lingerMs > 0) Thread.sleep(lingerMs);
    // cpu_ms: CPU time of the two allocating threads only (no start-up, GC or
    // JIT threads), steadier than wall time on a busy machine.
    System.out.println("elapsed_ms=" + (t1 - t0) / 1000000 + " cpu_ms="
        + (mainCpu + workerCpu[0]) / 1000000 + " checksum=" + checksum);
  }
}
