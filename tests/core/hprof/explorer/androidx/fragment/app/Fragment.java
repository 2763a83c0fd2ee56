// Stand-in for AndroidX's Fragment: attached while mFragmentManager is set.
package androidx.fragment.app;

public class Fragment {
  public Object mFragmentManager;
}
