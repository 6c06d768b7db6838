package extract

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
)

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// bombPNG is a PNG whose header claims w by h pixels and holds none.
func bombPNG(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 6 // 8 bits, RGBA
	chunk := func(kind string, data []byte) {
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(kind)
		b.Write(data)
		binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(kind), data...)))
	}
	chunk("IHDR", ihdr)
	chunk("IEND", nil)
	return b.Bytes()
}

// TestImageFor checks that a small image goes as it is, a large one scaled to fit the model's
// bounds with its shape kept, a photo as JPEG, and that an image whose header claims more pixels
// than MaxPixels is refused before it is decoded, as is what is not an image.
func TestImageFor(t *testing.T) {
	small := pngOf(t, 300, 200)
	big := pngOf(t, 3200, 1600)
	var photo bytes.Buffer
	if err := jpeg.Encode(&photo, image.NewRGBA(image.Rect(0, 0, 4000, 3000)), nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		data      []byte
		mediaType string
		w, h      int // the size sent
		sentType  string
		same      bool // the bytes as they are
		err       error
	}{
		{"small PNG", small, "image/png", 300, 200, "image/png", true, nil},
		{"wide PNG", big, "image/png", 1516, 758, "", false, nil},
		{"photo", photo.Bytes(), "image/jpeg", 1238, 928, "image/jpeg", false, nil},
		{"bomb", bombPNG(20000, 20000), "image/png", 0, 0, "", false, ErrTooManyPixels},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img, err := ImageFor(tt.data, tt.mediaType)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if img.SentWidth != tt.w || img.SentHeight != tt.h || img.SentWidth > MaxEdge || img.SentWidth*img.SentHeight > MaxSentPixels {
				t.Errorf("sent %dx%d, want %dx%d within the bounds", img.SentWidth, img.SentHeight, tt.w, tt.h)
			}
			if tt.sentType != "" && img.MediaType != tt.sentType {
				t.Errorf("sent as %s, want %s", img.MediaType, tt.sentType)
			}
			if same := bytes.Equal(img.Data, tt.data); same != tt.same {
				t.Errorf("sent the file's own bytes: %v, want %v", same, tt.same)
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(img.Data))
			if err != nil || cfg.Width != img.SentWidth || cfg.Height != img.SentHeight || "image/"+format != img.MediaType {
				t.Errorf("the image sent decodes as %s %dx%d (%v)", format, cfg.Width, cfg.Height, err)
			}
		})
	}
	if _, err := ImageFor([]byte("not an image"), "image/png"); err == nil {
		t.Errorf("text read as an image")
	}
}

// BenchmarkImageFor measures what a read of an image costs to hand a model: a 12-megapixel photo
// and a 3000x2000 screenshot-like PNG, each decoded, scaled and encoded.
func BenchmarkImageFor(b *testing.B) {
	photo := image.NewRGBA(image.Rect(0, 0, 4000, 3000))
	for y := 0; y < 3000; y++ {
		for x := 0; x < 4000; x++ {
			photo.Set(x, y, color.RGBA{uint8(x * y), uint8(x + y), uint8(x ^ y), 255})
		}
	}
	var jb bytes.Buffer
	if err := jpeg.Encode(&jb, photo, &jpeg.Options{Quality: 90}); err != nil {
		b.Fatal(err)
	}
	shot := image.NewNRGBA(image.Rect(0, 0, 3000, 2000))
	for y := 0; y < 2000; y += 20 {
		for x := 0; x < 3000; x++ {
			shot.Set(x, y, color.NRGBA{0, 0, 0, 255})
		}
	}
	var pb bytes.Buffer
	if err := png.Encode(&pb, shot); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name, mediaType string
		data            []byte
	}{{"photo-12MP-jpeg", "image/jpeg", jb.Bytes()}, {"screenshot-6MP-png", "image/png", pb.Bytes()}} {
		b.Run(bc.name, func(b *testing.B) {
			var sent int
			for b.Loop() {
				img, err := ImageFor(bc.data, bc.mediaType)
				if err != nil {
					b.Fatal(err)
				}
				sent = len(img.Data)
			}
			b.ReportMetric(float64(sent), "sent-bytes")
		})
	}
}
