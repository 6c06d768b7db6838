package extract

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
)

// epubText reads an EPUB: the chapters of its package's spine in order, each as HTML, and the
// package's title and creator.
func epubText(ctx context.Context, data []byte) (*Document, error) {
	z, err := openZip(data)
	if err != nil {
		return nil, err
	}
	opf, err := epubRoot(ctx, z)
	if err != nil {
		return nil, err
	}
	pkg, err := epubPackage(ctx, z, opf)
	if err != nil {
		return nil, err
	}
	c := &collector{}
	c.doc.Pages = len(pkg.spine)
	for i, name := range pkg.spine {
		if err = ctx.Err(); err != nil {
			break
		}
		var page []byte
		page, err = z.read(name)
		if errors.Is(err, errMissing) {
			continue // a spine that names a missing chapter: the rest is still read
		}
		if err != nil {
			break
		}
		c.page = i + 1
		if err = htmlInto(ctx, page, c, nil); err != nil {
			break
		}
	}
	doc, err := c.finish(err)
	if err != nil {
		return nil, err
	}
	doc.Title, doc.Author = pkg.title, strings.Join(pkg.creators, ", ")
	return doc, nil
}

// epubRoot returns the entry of the package document META-INF/container.xml names.
func epubRoot(ctx context.Context, z *zipDoc) (string, error) {
	root := ""
	err := z.walkXML(ctx, "META-INF/container.xml", func(tok xml.Token, open []string) error {
		if t, ok := tok.(xml.StartElement); ok && t.Name.Local == "rootfile" && root == "" {
			root = attr(t, "full-path")
		}
		return nil
	})
	if err != nil {
		return "", require(err, "an EPUB")
	}
	if root == "" {
		return "", fmt.Errorf("%w: META-INF/container.xml names no package document", ErrMalformed)
	}
	return root, nil
}

// epubPkg is what an EPUB's package document says of the book.
type epubPkg struct {
	title    string
	creators []string
	spine    []string // the chapters' entries in reading order
}

// epubPackage reads the package document opf: its metadata, manifest and spine.
func epubPackage(ctx context.Context, z *zipDoc, opf string) (*epubPkg, error) {
	var pkg epubPkg
	hrefs := map[string]string{}
	var order []string
	var text strings.Builder
	err := z.walkXML(ctx, opf, func(tok xml.Token, open []string) error {
		switch t := tok.(type) {
		case xml.StartElement:
			text.Reset()
			switch t.Name.Local {
			case "item":
				if strings.Contains(attr(t, "media-type"), "html") {
					hrefs[attr(t, "id")] = attr(t, "href")
				}
			case "itemref":
				order = append(order, attr(t, "idref"))
			}
		case xml.CharData:
			if text.Len()+len(t) <= maxProperty {
				text.Write(t)
			}
		case xml.EndElement:
			pkg.meta(t.Name.Local, open, strings.Join(strings.Fields(text.String()), " "))
		}
		return nil
	})
	if err != nil {
		return nil, require(err, "an EPUB")
	}
	dir := path.Dir(opf)
	for _, id := range order {
		if href, ok := hrefs[id]; ok {
			pkg.spine = append(pkg.spine, chapterName(dir, href))
		}
	}
	return &pkg, nil
}

// meta keeps the text of a metadata element that ends.
func (p *epubPkg) meta(local string, open []string, text string) {
	if text == "" || !slices.Contains(open, "metadata") {
		return
	}
	switch local {
	case "title":
		if p.title == "" {
			p.title = text
		}
	case "creator":
		p.creators = append(p.creators, text)
	}
}

// chapterName resolves a manifest's href, a URL relative to the package document's folder dir.
func chapterName(dir, href string) string {
	href, _, _ = strings.Cut(href, "#")
	if u, err := url.PathUnescape(href); err == nil {
		href = u
	}
	return partName(dir, href)
}
