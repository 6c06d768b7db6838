// Package extract turns the bytes of files the tools do not read as text into what a model can
// use: documents (PDF, Office, OpenDocument, EPUB) into their text with where each part is, images
// into model-sized images. It takes bytes from its callers and opens no file of theirs: the one
// folder it uses is the cache of PDFium's compiled code, which its caller places ([SetCacheDir]).
// Every parser runs within limits on what it decodes, so a hostile file costs a bounded amount of
// memory and time.
package extract

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// Limits of an image handed to a model.
const (
	// MaxEdge is the longest side of an image sent: Anthropic's vision guidance, past which a
	// model's host scales it down anyway (and spends the bytes to send it).
	MaxEdge = 1568
	// MaxSentPixels is the most pixels an image sent holds, about 1.15 megapixels as that guidance
	// has it: an image costs a model tokens by its area.
	MaxSentPixels = 1_150_000
	// MaxPixels is the most pixels an image may have to be decoded at all: 40 megapixels take
	// 160 MB as RGBA, the bound on what one read costs in memory. Its size is read from the header
	// first, so a bomb that claims more is refused before any pixel is decoded.
	MaxPixels = 40_000_000
	// MaxSentBytes is the most an image sent may take encoded: PNG past it is sent as JPEG.
	MaxSentBytes = 1 << 20
	// jpegQuality is what a scaled image is encoded at: text in a screenshot stays legible.
	jpegQuality = 85
)

// decoding holds the one decode that runs at a time: a photo takes many times its file's size
// while it is decoded and scaled (dev/bench/README.md, An image a model can see), and parallel
// reads of images would add those up.
var decoding = make(chan struct{}, 1)

// ErrTooManyPixels is an image larger than MaxPixels.
var ErrTooManyPixels = errors.New("image too large to decode")

// Image is an image as a model receives it.
type Image struct {
	// Width and Height are the image's own size in pixels.
	Width, Height int
	// Data is the image sent, MediaType its type: the file's own bytes when it fits, else a scaled
	// copy.
	Data      []byte
	MediaType string
	// SentWidth and SentHeight are the size of the image sent.
	SentWidth, SentHeight int
}

// decoders are the formats Image reads, by the media type the caller sniffed.
var decoders = map[string]struct {
	config func([]byte) (image.Config, error)
	decode func([]byte) (image.Image, error)
}{
	"image/png":  {reader(png.DecodeConfig), reader(png.Decode)},
	"image/jpeg": {reader(jpeg.DecodeConfig), reader(jpeg.Decode)},
	"image/gif":  {reader(gif.DecodeConfig), reader(gif.Decode)},
	"image/webp": {reader(webp.DecodeConfig), reader(webp.Decode)},
}

// reader adapts a decoder of an io.Reader to bytes.
func reader[T any](f func(r io.Reader) (T, error)) func([]byte) (T, error) {
	return func(b []byte) (T, error) { return f(bytes.NewReader(b)) }
}

// Supported reports whether Image reads images of mediaType.
func Supported(mediaType string) bool {
	_, ok := decoders[mediaType]
	return ok
}

// ImageFor makes of data, an image of mediaType, the image a model receives: the bytes as they
// are when the image is small enough (MaxEdge, MaxSentPixels, MaxSentBytes), else a copy scaled
// down to fit, as PNG (JPEG for a photo, or when the PNG would be larger than MaxSentBytes). An
// image of more than MaxPixels is refused with ErrTooManyPixels before it is decoded.
func ImageFor(data []byte, mediaType string) (Image, error) {
	d, ok := decoders[mediaType]
	if !ok {
		return Image{}, fmt.Errorf("%s images are not read", mediaType)
	}
	cfg, err := d.config(data)
	if err != nil {
		return Image{}, fmt.Errorf("not a readable %s: %w", mediaType, err)
	}
	out := Image{Width: cfg.Width, Height: cfg.Height}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return out, ErrTooManyPixels
	}
	w, h := fit(cfg.Width, cfg.Height)
	if w == cfg.Width && h == cfg.Height && len(data) <= MaxSentBytes {
		out.Data, out.MediaType, out.SentWidth, out.SentHeight = data, mediaType, w, h
		return out, nil
	}
	decoding <- struct{}{}
	defer func() { <-decoding }()
	src, err := d.decode(data)
	if err != nil {
		return out, fmt.Errorf("not a readable %s: %w", mediaType, err)
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src) // what is clear shows as paper
	draw.BiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Over, nil)
	out.SentWidth, out.SentHeight = w, h
	var b bytes.Buffer
	if mediaType != "image/jpeg" {
		if err := png.Encode(&b, dst); err == nil && b.Len() <= MaxSentBytes {
			out.Data, out.MediaType = b.Bytes(), "image/png"
			return out, nil
		}
		b.Reset()
	}
	if err := jpeg.Encode(&b, dst, &jpeg.Options{Quality: jpegQuality}); err != nil {
		return out, err
	}
	out.Data, out.MediaType = b.Bytes(), "image/jpeg"
	return out, nil
}

// fit returns the largest size of the same shape as w by h within MaxEdge and MaxSentPixels.
func fit(w, h int) (int, int) {
	scale := 1.0
	if long := max(w, h); long > MaxEdge {
		scale = float64(MaxEdge) / float64(long)
	}
	if px := float64(w) * float64(h) * scale * scale; px > MaxSentPixels {
		scale *= math.Sqrt(MaxSentPixels / px)
	}
	if scale >= 1 {
		return w, h
	}
	return max(1, int(float64(w)*scale)), max(1, int(float64(h)*scale))
}
