// Stand-in for Android's Bitmap: pixels in a Java byte array, as ART dumps have them.
package android.graphics;

public class Bitmap {
  public byte[] mBuffer;
  public int mWidth, mHeight;

  public Bitmap(byte[] buffer, int width, int height) {
    mBuffer = buffer;
    mWidth = width;
    mHeight = height;
  }
}
