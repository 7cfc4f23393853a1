// River beside budcore: inserts N no-op jobs into River (github.com/riverqueue/river) on a
// PostgreSQL database with InsertMany in batches, works them with a River client in this
// process until every one is completed, and prints the end-to-end rate (first insert to last
// completion) as one JSON line. The same work as benchmarks/ha_bench.cpp's `river_peer` case:
// budcore submits N jobs in batches, its leader admits them and they run 0 s to completion.
//
//	go run . -uri postgresql://postgres@127.0.0.1:5432/postgres -n 10000 -batch 1000
//
// Each run works in a schema of its own (dropped first, then migrated with rivermigrate), so
// runs do not see each other's jobs.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

type NoopArgs struct {
	Shard int `json:"shard"`
}

func (NoopArgs) Kind() string { return "noop" }

type NoopWorker struct {
	river.WorkerDefaults[NoopArgs]
}

func (w *NoopWorker) Work(ctx context.Context, job *river.Job[NoopArgs]) error { return nil }

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "river_peer: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	uri := flag.String("uri", os.Getenv("BUDCORE_BENCH_PG_URI"), "PostgreSQL URI (default $BUDCORE_BENCH_PG_URI)")
	n := flag.Int("n", 10000, "jobs")
	batch := flag.Int("batch", 1000, "jobs per InsertMany call")
	workers := flag.Int("workers", 1000, "MaxWorkers of the default queue (River fetches at most this many jobs per fetch, at most one fetch per 100 ms cooldown)")
	schema := flag.String("schema", "river_peer", "schema the run creates (dropped first)")
	timeout := flag.Duration("timeout", 10*time.Minute, "give up after")
	flag.Parse()
	if *uri == "" {
		fail("no PostgreSQL URI: pass -uri or set BUDCORE_BENCH_PG_URI")
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	// A fresh schema, River's tables migrated into it.
	admin, err := pgx.Connect(ctx, *uri)
	if err != nil {
		fail("connect: %v", err)
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf("DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", *schema, *schema)); err != nil {
		fail("schema: %v", err)
	}
	admin.Close(ctx)
	cfg, err := pgxpool.ParseConfig(*uri)
	if err != nil {
		fail("uri: %v", err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = *schema
	cfg.MaxConns = 20
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		fail("pool: %v", err)
	}
	defer pool.Close()
	driver := riverpgxv5.New(pool)
	migrator, err := rivermigrate.New(driver, nil)
	if err != nil {
		fail("migrator: %v", err)
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		fail("migrate: %v", err)
	}

	ws := river.NewWorkers()
	river.AddWorker(ws, &NoopWorker{})
	client, err := river.NewClient(driver, &river.Config{
		Queues:  map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: *workers}},
		Workers: ws,
	})
	if err != nil {
		fail("client: %v", err)
	}
	// Every completion is counted: a channel large enough that none is dropped.
	events, stop := client.SubscribeConfig(&river.SubscribeConfig{
		ChanSize: *n + 1000,
		Kinds:    []river.EventKind{river.EventKindJobCompleted, river.EventKindJobFailed},
	})
	defer stop()
	if err := client.Start(ctx); err != nil {
		fail("start: %v", err)
	}

	t0 := time.Now()
	for base := 0; base < *n; base += *batch {
		params := make([]river.InsertManyParams, 0, *batch)
		for i := base; i < base+*batch && i < *n; i++ {
			params = append(params, river.InsertManyParams{Args: NoopArgs{Shard: i}})
		}
		if _, err := client.InsertMany(ctx, params); err != nil {
			fail("insert: %v", err)
		}
	}
	inserted := time.Since(t0)
	completed, failed := 0, 0
	for completed+failed < *n {
		select {
		case e := <-events:
			if e.Kind == river.EventKindJobCompleted {
				completed++
			} else {
				failed++
			}
		case <-ctx.Done():
			fail("timed out with %d of %d jobs completed", completed, *n)
		}
	}
	secs := time.Since(t0).Seconds()
	if err := client.Stop(context.Background()); err != nil {
		fail("stop: %v", err)
	}
	var stored int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM river_job WHERE state = 'completed'").Scan(&stored); err != nil {
		fail("count: %v", err)
	}
	out, _ := json.Marshal(map[string]any{
		"engine":             "river",
		"jobs":               *n,
		"batch":              *batch,
		"workers":            *workers,
		"completed":          completed,
		"failed":             failed,
		"completed_in_store": stored,
		"insert_seconds":     inserted.Seconds(),
		"seconds":            secs,
		"jobs_per_s":         float64(*n) / secs,
	})
	fmt.Println(string(out))
	if failed > 0 || stored != *n {
		os.Exit(1)
	}
}
