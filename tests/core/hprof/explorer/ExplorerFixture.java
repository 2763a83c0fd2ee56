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
    for (int i = 0; i < 4; i++) keep.add(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9});
    byte[] pixels = new byte[64 * 64 * 4];
    for (int i = 0; i < pixels.length; i++) pixels[i] = (byte) (i * 7);
    for (int i = 0; i < 3; i++) keep.add(new Bitmap(pixels.clone(), 64, 64));
    keep.add(new Bitmap(new byte[64 * 64 * 4], 64, 64));  // different pixels
    System.out.println("READY");
    System.out.flush();
    Thread.sleep(600_000);
  }
}
