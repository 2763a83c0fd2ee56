// A small JDK program whose heap the HPROF test dumps: its own classes with
// every field kind, an inheritance chain, arrays, statics, a weak reference
// and a weakly reachable referent. It prints READY and sleeps; with "oom" it
// allocates until the heap is exhausted.
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

public class HeapFixture {
  static class Node {
    Node next;
    int value;
    long wide;
    String label;
    Node(Node next, int value) { this.next = next; this.value = value; this.label = "n" + value; }
  }
  static class Leaf extends Node {
    Object extra;
    byte[] data = new byte[24];
    Leaf(int v) { super(null, v); }
  }
  static class Holder {
    WeakReference<Object> weak;
    Object[] slots = new Object[5];
    char c; short s; float f; double d; boolean b;
  }
  static Object keep;
  static Holder holder;

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("oom")) {  // run with -XX:+HeapDumpOnOutOfMemoryError
      List<Object> hog = new ArrayList<>();
      for (int i = 0;; i++) hog.add(i % 2 == 0 ? new Node(null, i) : new long[4096]);
    }
    Node head = null;
    for (int i = 0; i < 300; i++) head = new Node(head, i);
    List<Object> leaves = new ArrayList<>();
    for (int i = 0; i < 17; i++) leaves.add(new Leaf(i));
    holder = new Holder();
    holder.weak = new WeakReference<>(new int[11]);  // only weakly reachable
    holder.slots[1] = head;
    holder.slots[3] = new long[7];
    keep = new Object[] {head, leaves, holder};
    System.out.println("READY");
    System.out.flush();
    Thread.sleep(600_000);
  }
}
