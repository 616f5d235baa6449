"""What scripts/fidelity writes: fidelity.csv (atomically) and the plot of
predicted against measured ratios (fidelity.png / .svg, when matplotlib is
there)."""
import csv
import os


def write_csv(path, results):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["configuration", "kernel", "num_stages", "ii", "ctas_per_sm", "bound",
                    "predicted_sm_cycles", "predicted_ratio", "measured_ms", "measured_ratio",
                    "ratio_error", "predicted_kernel_us", "predicted_smem_bytes",
                    "compiled_smem_bytes", "smem_error", "n_regs", "stages_differing", "ops",
                    "problems"])
        for r in results:
            m = r["m"]
            w.writerow([r["tag"], r["kernel"], r["stages"], r["ii"], r["pred"]["ctas_per_sm"],
                        r["pred"]["bound"], r["pred"]["sm_cycles"], f"{r['predicted_ratio']:.4f}",
                        m["ms"], f"{r['measured_ratio']:.4f}",
                        f"{r['predicted_ratio'] / r['measured_ratio'] - 1:.4f}",
                        r["pred"].get("kernel_us"), r["pred"]["smem_bytes"], m["shared_bytes"],
                        f"{r['pred']['smem_bytes'] / m['shared_bytes'] - 1:.5f}", m["n_regs"],
                        len(r["diff"]), r["ops"], "; ".join(r["problems"])])
    os.replace(tmp, path)


def plot(out_dir, results):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("fidelity: no matplotlib: plot skipped")
        return
    plt.rcParams["svg.hashsalt"] = "tilesched-fidelity"  # stable ids: a rerun writes the same file
    fig, ax = plt.subplots(figsize=(6, 5.5))
    markers = {"matmul": "o", "matmul_tma": "s", "attention": "^", "attention_tma": "D"}
    for kernel in sorted({r["kernel"] for r in results}):
        xs = [r["measured_ratio"] for r in results if r["kernel"] == kernel]
        ys = [r["predicted_ratio"] for r in results if r["kernel"] == kernel]
        ax.scatter(xs, ys, marker=markers.get(kernel, "x"), s=50, label=kernel, alpha=0.8)
    hi = max(max(r["measured_ratio"], r["predicted_ratio"]) for r in results) * 1.05
    line = [0.95, hi]
    ax.plot(line, line, "k-", lw=0.8, label="exact")
    for band, style in ((0.05, "--"), (0.12, ":")):
        ax.plot(line, [x * (1 + band) for x in line], "k" + style, lw=0.6)
        ax.plot(line, [x * (1 - band) for x in line], "k" + style, lw=0.6,
                label=f"±{band:.0%}")
    ax.set_xlim(0.95, hi)
    ax.set_ylim(0.95 * 0.8, hi)
    ax.set_xlabel("measured time / best num_stages of its group (H200, retimed)")
    ax.set_ylabel("predicted time / best (hopper target)")
    ax.set_title("Triton kernels at several num_stages: predicted vs measured")
    ax.legend(fontsize=8)
    fig.tight_layout()
    for ext in ("png", "svg"):
        tmp = os.path.join(out_dir, f"fidelity.tmp.{ext}")
        fig.savefig(tmp, dpi=120, metadata={"Date": None} if ext == "svg" else None)  # stable file
        os.replace(tmp, os.path.join(out_dir, f"fidelity.{ext}"))
