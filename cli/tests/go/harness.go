// Reads "nanoseconds,key" lines and decides each request with the limiter
// limits.New<Name>Limiter builds, as the call named on the command line
// makes it, at that instant: golang.org/x/time/rate itself, on an
// explicit clock. Writes "outcome,nanoseconds" per request.
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	_ "unsafe"

	"golang.org/x/time/rate"
	"limits"
)

// Wait on an explicit clock: WaitN's own body, with the instant and the
// timer given.
//
//go:linkname limiterWait golang.org/x/time/rate.(*Limiter).wait
func limiterWait(lim *rate.Limiter, ctx context.Context, n int, t time.Time, newTimer func(d time.Duration) (<-chan time.Time, func() bool, func())) error

// A context whose deadline is on the explicit clock and which is never done.
type deadline struct {
	context.Context
	at  time.Time
	set bool
}

func (d deadline) Deadline() (time.Time, bool) { return d.at, d.set }

func main() {
	call, perKey := os.Args[1], os.Args[2] == "per_key"
	timeout, err := strconv.ParseInt(os.Args[3], 10, 64)
	if err != nil {
		panic(err)
	}
	base := time.Unix(1_000_000_000, 0)
	limiters := map[string]*rate.Limiter{}
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		fields := strings.SplitN(in.Text(), ",", 2)
		ns, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			panic(err)
		}
		key := ""
		if perKey {
			key = fields[1]
		}
		lim, ok := limiters[key]
		if !ok {
			lim = limits.NewLimitLimiter()
			limiters[key] = lim
		}
		t := base.Add(time.Duration(ns))
		outcome, at := "rejected", ns
		switch call {
		case "allow":
			if lim.AllowN(t, 1) {
				outcome = "admitted"
			}
		case "reserve":
			if r := lim.ReserveN(t, 1); r.OK() {
				d := r.DelayFrom(t)
				outcome, at = "admitted", ns+int64(d)
				if d > 0 {
					outcome = "delayed"
				}
			}
		case "wait":
			var waited time.Duration
			timer := func(d time.Duration) (<-chan time.Time, func() bool, func()) {
				waited = d
				fired := make(chan time.Time, 1)
				fired <- t.Add(d)
				return fired, func() bool { return true }, func() {}
			}
			ctx := deadline{context.Background(), t.Add(time.Duration(timeout)), timeout >= 0}
			if limiterWait(lim, ctx, 1, t, timer) == nil {
				outcome, at = "admitted", ns+int64(waited)
				if waited > 0 {
					outcome = "delayed"
				}
			}
		}
		fmt.Fprintf(out, "%s,%d\n", outcome, at)
	}
}
