// Stand-in for Android's Activity: the fields the heap explorer's leak filter reads.
package android.app;

public class Activity {
  public boolean mDestroyed;
  public boolean mFinished;
  public Object mState = new int[3];
}
