// A JDK program whose heap the heap explorer tests dump: leaked and live
// Activities and Fragments (stand-in android classes next to this file),
// equal strings, equal primitive arrays and equal bitmaps. Prints READY and
// sleeps.
import android.app.Activity;
import android.graphics.Bitmap;
import androidx.fragment.app.Fragment;
import java.util.ArrayList;
import java.util.List;

public class ExplorerFixture {
  static class MainActivity extends Activity {
    byte[] cache = new byte[1000];
  }
  static class DetailFragment extends Fragment {
    long[] rows = new long[20];
  }
  static final List<Object> keep = new ArrayList<>();

  public static void main(String[] args) throws Exception {
    MainActivity destroyed = new MainActivity();
    destroyed.mDestroyed = true;
    MainActivity finished = new MainActivity();
    finished.mFinished = true;
    keep.add(destroyed);
    keep.add(finished);
    keep.add(new MainActivity());  // alive
    DetailFragment attached = new DetailFragment();
    attached.mFragmentManager = new Object();
    keep.add(attached);
    keep.add(new DetailFragment());  // detached: no manager
    char[] text = "duplicate me, please".toCharArray();
    for (int i = 0; i < 5; i++) keep.add(new String(text));  // 5 equal strings, 5 arrays
    // UTF-16 (HotSpot's coder 1): 3 copies of a string with non-Latin-1 text.
    char[] wide = "\u017C\u00F3\u0142w \u2713 \u65E5\u672C".toCharArray();
    for (int i = 0; i < 3; i++) keep.add(new String(wide));
    for (int i = 0; i < 4; i++) keep.add(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9});
    byte[] pixels = new byte[64 * 64 * 4];
    for (int i = 0; i < pixels.length; i++) pixels[i] = (byte) (i * 7);
    for (int i = 0; i < 3; i++) keep.add(new Bitmap(pixels.clone(), 64, 64));
    keep.add(new Bitmap(new byte[64 * 64 * 4], 64, 64));  // different pixels
    // An opaque picture to look at: a gradient with a dark ring (R, G, B, A).
    byte[] picture = new byte[96 * 64 * 4];
    for (int y = 0; y < 64; y++)
      for (int x = 0; x < 96; x++) {
        int d = (x - 48) * (x - 48) + (y - 32) * (y - 32);
        boolean ring = d > 18 * 18 && d < 24 * 24;
        int o = (y * 96 + x) * 4;
        picture[o] = (byte) (ring ? 20 : x * 255 / 95);
        picture[o + 1] = (byte) (ring ? 20 : y * 255 / 63);
        picture[o + 2] = (byte) (ring ? 20 : 160);
        picture[o + 3] = (byte) 255;
      }
    keep.add(new Bitmap(picture, 96, 64));
    System.out.println("READY");
    System.out.flush();
    Thread.sleep(600_000);
  }
}
