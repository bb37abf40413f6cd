package jail

import (
	"errors"
	"io"
	"os"
	"sync"
)

// stdio holds the three descriptors handed to a program and the copying
// goroutines that feed non-file readers and writers.
type stdio struct {
	files   [3]*os.File // the child's ends
	closeMe []*os.File  // our copies of the child's ends, closed after start
	own     []*os.File  // our ends of pipes, closed when done
	copies  sync.WaitGroup
}

func openStdio(in io.Reader, out, errw io.Writer) (*stdio, error) {
	s := &stdio{}
	var err error
	if s.files[0], err = s.input(in); err != nil {
		s.closeAll()
		return nil, err
	}
	for i, w := range []io.Writer{out, errw} {
		if s.files[i+1], err = s.output(w); err != nil {
			s.closeAll()
			return nil, err
		}
	}
	return s, nil
}

func (s *stdio) input(r io.Reader) (*os.File, error) {
	if f, ok := r.(*os.File); ok {
		return f, nil
	}
	if r == nil {
		f, err := os.Open(os.DevNull)
		s.closeMe = append(s.closeMe, f)
		return f, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s.closeMe = append(s.closeMe, pr)
	go func() {
		_, _ = io.Copy(pw, r)
		_ = pw.Close()
	}()
	return pr, nil
}

func (s *stdio) output(w io.Writer) (*os.File, error) {
	if f, ok := w.(*os.File); ok {
		return f, nil
	}
	if w == nil {
		f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		s.closeMe = append(s.closeMe, f)
		return f, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s.closeMe = append(s.closeMe, pw)
	s.own = append(s.own, pr)
	s.copies.Add(1)
	go func() {
		defer s.copies.Done()
		_, err := io.Copy(w, pr)
		if err != nil && !errors.Is(err, os.ErrClosed) {
			_, _ = io.Copy(io.Discard, pr)
		}
	}()
	return pw, nil
}

// started closes our copies of the child's descriptors.
func (s *stdio) started() {
	for _, f := range s.closeMe {
		_ = f.Close()
	}
	s.closeMe = nil
}

// wait waits for the output copies to drain, which happens once every
// process holding the write ends has exited.
func (s *stdio) wait() {
	s.copies.Wait()
	for _, f := range s.own {
		_ = f.Close()
	}
}

func (s *stdio) closeAll() {
	s.started()
	for _, f := range s.own {
		_ = f.Close()
	}
}
