//! The experiment format: parsing, axis expansion, expressions at their lines, argument
//! binding against kernel signatures, and every bad-file error with its message.

use super::plan::{plan, Arg, DeviceVars, Smem};
use super::*;

const KERNEL: &str = crate::measure::spec::scaffold::EXPERIMENT_KERNEL;

fn good() -> String {
    crate::measure::spec::scaffold::experiment_yaml("scale")
}

fn h200() -> DeviceVars {
    [
        ("sm_count", 132),
        ("l2_bytes", 62914560),
        ("mem_bytes", 150_000_000_000),
        ("max_threads_per_block", 1024),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

fn parse(text: &str) -> Result<ExperimentSpec> {
    ExperimentSpec::parse(Path::new("m/x/experiment.yaml"), text)
}

/// An experiment in a temp dir (kept alive by the returned guard).
fn load(text: &str, kernel: &str) -> (tempfile::TempDir, Result<Experiment>) {
    let dir = tempfile::tempdir().unwrap();
    let exp_dir = dir.path().join("scale");
    std::fs::create_dir_all(&exp_dir).unwrap();
    std::fs::write(exp_dir.join(EXPERIMENT_FILE), text).unwrap();
    std::fs::write(exp_dir.join("scale.cu"), kernel).unwrap();
    let e = Experiment::load(&exp_dir);
    (dir, e)
}

/// Every error of planning and binding `text`, as strings.
fn errors(text: &str) -> Vec<String> {
    let (_dir, e) = load(text, KERNEL);
    let e = match e {
        Ok(e) => e,
        Err(e) => return e.flatten().iter().map(|e| e.to_string()).collect(),
    };
    match crate::measure::run::plan_all(std::slice::from_ref(&e), &h200()) {
        Ok(_) => Vec::new(),
        Err(crate::measure::run::RunError::Spec(e)) => {
            e.flatten().iter().map(|e| e.to_string()).collect()
        }
        Err(other) => vec![other.to_string()],
    }
}

/// `line:column` of `at` in `text`: the first line holding `at` without its `|`, and the
/// column of the `|` (or of the start of `at` when it has none).
#[track_caller]
fn place(text: &str, at: &str) -> String {
    let (before, after) = at.split_once('|').unwrap_or(("", at));
    let needle = format!("{before}{after}");
    let (i, l) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(&needle))
        .unwrap_or_else(|| panic!("`{needle}` is not in the text"));
    let col = l[..l.find(&needle).unwrap() + before.len()].chars().count() + 1;
    format!("{}:{col}", i + 1)
}

/// Exactly one error, containing `message`, at the line and column marked by `at` (see
/// [`place`]).
#[track_caller]
fn one_error(text: &str, at: &str, message: &str) {
    let all = errors(text);
    assert_eq!(all.len(), 1, "{all:#?}");
    let place = place(text, at);
    assert!(
        all[0].contains(&format!("experiment.yaml:{place}:")),
        "want {place}: {}",
        all[0]
    );
    assert!(all[0].contains(message), "want `{message}` in: {}", all[0]);
}

#[test]
fn the_scaffold_parses_and_plans_two_configs() {
    assert_eq!(errors(&good()), Vec::<String>::new());
    let spec = parse(&good()).unwrap();
    let plans = plan(&spec, &h200()).unwrap();
    let labels: Vec<&str> = plans.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(labels, ["block128", "block256"]);
    let p = &plans[1];
    assert_eq!(p.params["n"], 1 << 24);
    assert_eq!(p.launches[0].grid, [65536, 1, 1]);
    assert_eq!(p.launches[0].block, [256, 1, 1]);
    assert_eq!(
        p.launches[0].args[0],
        Arg::Scalar {
            ty: ScalarType::F32,
            bytes: 2.5f32.to_le_bytes().to_vec(),
            shown: "2.5".into()
        }
    );
    assert_eq!(p.launches[0].args[1], Arg::Buffer(0));
    assert_eq!(p.buffers[1].len, 1 << 24);
    assert!(p.reference.is_some());
}

#[test]
fn axes_expand_as_a_product_with_templates_overrides_and_explicit_configs() {
    let text = good()
        .replace(
            "axes:\n  block: [128, 256]             # one config per value: labels block128, block256\n",
            "axes:\n  block: [128, 256]\n  ept: [1, 2, 4]\nlabel: \"b{block}-e{ept}\"\noverrides:\n  - where: {block: 256, ept: 4}\n    set: {n: 1 << 10}\nconfigs:\n  - {label: wide, block: 1024, ept: 1}\n",
        )
        .replace("grid: ceil_div(n, block)\n", "grid: [\"ceil_div(n, block * ept)\", 2]\n");
    let spec = parse(&text).unwrap();
    let plans = plan(&spec, &h200()).unwrap();
    let labels: Vec<&str> = plans.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(
        labels,
        ["b128-e1", "b128-e2", "b128-e4", "b256-e1", "b256-e2", "b256-e4", "wide"]
    );
    let over = &plans[5];
    assert_eq!(over.params["n"], 1024);
    assert_eq!(over.launches[0].grid, [1, 2, 1]);
    assert_eq!(plans[0].launches[0].grid, [131072, 2, 1]);
    assert_eq!(plans[6].params["block"], 1024);
}

#[test]
fn the_config_limit_is_checked_before_expanding() {
    let text = good().replace(
        "  block: [128, 256]",
        "  block: [128, 256]\n  a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n  b: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n  c: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]",
    );
    one_error(&text, "axes:", "2000 configurations (axes block: 2 x a: 10 x b: 10 x c: 10 plus 0 explicit) exceed the limit of 1000 (raise `max_configs` if you mean it)");
    let raised = text.replace("seed: 1", "seed: 1\nmax_configs: 2000");
    assert_eq!(plan(&parse(&raised).unwrap(), &h200()).unwrap().len(), 2000);
}

#[test]
fn device_properties_are_expression_names() {
    let text = good().replace(
        "  n: 1 << 24                    # elements",
        "  n: l2_bytes * 4 / 4",
    );
    let plans = plan(&parse(&text).unwrap(), &h200()).unwrap();
    assert_eq!(plans[0].params["n"], 62914560);
    let mut no_l2 = h200();
    no_l2.remove("l2_bytes");
    let e = plan(&parse(&text).unwrap(), &no_l2).unwrap_err();
    assert!(e[0].message.contains("unknown name `l2_bytes`"), "{e:?}");
}

#[test]
fn two_and_three_dimensional_launches_and_the_dial() {
    let text = good().replace(
        "grid: ceil_div(n, block)\n    block: block\n",
        "grid: [4, 3, 2]\n    block: [16, 8, 2]\n    target_blocks_per_sm: 2\n",
    );
    let plans = plan(&parse(&text).unwrap(), &h200()).unwrap();
    let l = &plans[0].launches[0];
    assert_eq!(
        (l.grid, l.block, l.smem),
        ([4, 3, 2], [16, 8, 2], Smem::TargetBlocks(2))
    );
    assert_eq!((l.block_threads(), l.grid_blocks()), (256, 24));
}

// ---- every bad-file error, with its message and line ----

#[test]
fn unknown_buffer_in_an_argument_list() {
    let text = good().replace(
        "args: [{f32: 2.5}, x, out, {u64: n}]\n    grid: ceil_div(n, block)",
        "args: [{f32: 2.5}, xs, out, {u64: n}]\n    grid: ceil_div(n, block)",
    );
    one_error(&text, "xs,", "kernel `scale`: argument `xs` is not a buffer (buffers: x, out); a scalar needs its type, e.g. {u64: xs}");
}

#[test]
fn unknown_param_in_an_expression() {
    let text = good().replace(
        "grid: ceil_div(n, block)",
        "grid: ceil_div(rows * cols, block)",
    );
    one_error(
        &text,
        "grid: |ceil_div(rows * cols, block)",
        "kernel `scale`: grid: unknown name `rows` in `ceil_div(rows * cols, block)`",
    );
}

#[test]
fn division_by_zero_and_overflow_in_expressions() {
    let text = good()
        .replace(
            "  n: 1 << 24                    # elements",
            "  n: 1 << 24\n  zero: 0",
        )
        .replace("grid: ceil_div(n, block)", "grid: n / zero");
    one_error(&text, "n / zero", "division by zero in `n / zero`");
    let text = good().replace(
        "  n: 1 << 24                    # elements",
        "  n: 1 << 62 << 2",
    );
    one_error(
        &text,
        "1 << 62 << 2",
        "param `n`: integer overflow in `1 << 62 << 2`",
    );
    let text = good().replace("length: n, fill", "length: n * 9223372036854775807, fill");
    one_error(
        &text,
        "length: |n * 9223372036854775807",
        "integer overflow",
    );
}

#[test]
fn argument_count_and_type_against_the_kernel() {
    let text = good().replace(
        "args: [{f32: 2.5}, x, out, {u64: n}]\n    grid: ceil_div(n, block)",
        "args: [{f32: 2.5}, x, out]\n    grid: ceil_div(n, block)",
    );
    one_error(&text, "  - kernel: |scale", "kernel `scale` takes 4 arguments (float a, const float* __restrict__ x, float* __restrict__ out, unsigned long long n), the launch passes 3");
    let text = good().replace(
        "args: [{f32: 2.5}, x, out, {u64: n}]\n    grid: ceil_div(n, block)",
        "args: [{f32: 2.5}, x, out, {i32: n}]\n    grid: ceil_div(n, block)",
    );
    one_error(
        &text,
        "  - kernel: |scale",
        "kernel `scale` argument 4 (`unsigned long long n`) is u64, the launch passes i32",
    );
    let text = good().replace("x:   {type: f32", "x:   {type: f16");
    let all = errors(&text);
    assert_eq!(all.len(), 2, "{all:#?}");
    assert!(all[0].contains(&format!(":{}: kernel `scale` argument 2 (`const float* __restrict__ x`) takes f32 elements, buffer `x` is f16", place(&text, "  - kernel: |scale"))), "{all:#?}");
    assert!(all[1].contains("kernel `scale_reference` argument 2 (`const float* x`) takes f32 elements, buffer `x` is f16"), "{all:#?}");
    let text = good().replace(
        "args: [{f32: 2.5}, x, out, {u64: n}]\n    grid: ceil_div(n, block)",
        "args: [x, x, out, {u64: n}]\n    grid: ceil_div(n, block)",
    );
    one_error(
        &text,
        "  - kernel: |scale",
        "kernel `scale` argument 1 (`float a`) is a scalar, the launch passes buffer `x`",
    );
    let text = good().replace("{i32: 1}", "").replace(
        "args: [{f32: 2.5}, x, out, {u64: n}]\n    grid: ceil_div(n, block)",
        "args: [{f32: 2.5}, {u64: n}, out, {u64: n}]\n    grid: ceil_div(n, block)",
    );
    one_error(&text, "  - kernel: |scale", "kernel `scale` argument 2 (`const float* __restrict__ x`) is a pointer, the launch passes a u64 scalar");
    let text = good().replace(
        "{u64: n}]\n    grid: ceil_div(n, block)",
        "{u32: -1}]\n    grid: ceil_div(n, block)",
    );
    one_error(&text, "{u32: |-1}", "-1 does not fit u32");
}

#[test]
fn a_kernel_name_not_in_the_sources() {
    let text = good().replace("  - kernel: scale\n", "  - kernel: scael\n");
    one_error(&text, "kernel: |scael", "kernel `scael` is not an extern \"C\" __global__ function of scale.cu (found: scale, scale_reference)");
}

#[test]
fn a_float_output_without_a_tolerance_and_an_integer_one_with() {
    let text = good().replace(", tolerance: {ulps: 1}}", "}");
    one_error(
        &text,
        "out: {type",
        "output buffer `out` is f32: give a `tolerance` (abs, rel or ulps)",
    );
    let text = good().replace("x:   {type: f32, length: n, fill: {uniform: [-1, 1]}}", "x:   {type: f32, length: n, fill: {uniform: [-1, 1]}}\n  idx: {type: u32, length: n, output: true, tolerance: {abs: 1}}");
    one_error(
        &text,
        "tolerance: |{abs: 1}",
        "buffer `idx` is u32: integer outputs match exactly, a tolerance does not apply",
    );
}

#[test]
fn buffers_larger_than_the_gpu_are_refused_with_the_numbers() {
    let text = good().replace("  n: 1 << 24                    # elements", "  n: 1 << 36");
    one_error(&text, "buffers:", "config `block128` (and 1 more): the buffers need 549755813888 bytes (512.00 GiB), more than the GPU's 150000000000 bytes (139.70 GiB)");
}

#[test]
fn outputs_need_a_reference_and_a_reference_config_must_exist() {
    let cut = good();
    let text = cut[..cut.find("reference:").unwrap()].to_string() + "metrics: {}\n";
    one_error(&text, "buffers:", "outputs need a `reference`");
    let text = good().replace(
        "reference:\n  launches:\n    - kernel: scale_reference\n      args: [{f32: 2.5}, x, out, {u64: n}]\n      grid: ceil_div(n, 256)\n      block: 256\n",
        "reference:\n  config: block512\n",
    );
    one_error(
        &text,
        "block512",
        "reference config `block512` is not a configuration of this experiment",
    );
}

#[test]
fn unknown_fields_names_and_types_are_errors_at_their_lines() {
    let text = good().replace(
        "    block: block\n\nreference",
        "    blok: block\n\nreference",
    );
    let all = errors(&text);
    assert!(all[0].contains("unknown field `blok`"), "{all:?}");
    let text = good().replace(
        "{f32: 2.5}, x, out, {u64: n}]\n    grid",
        "{f16: 2.5}, x, out, {u64: n}]\n    grid",
    );
    one_error(&text, "{|f16: 2.5}", "`f16` is not a scalar type");
    let text = good().replace(
        "unit: GB/s",
        "unit: GB/s}\n  bad: {value: bytes / median_ms",
    );
    one_error(
        &text,
        "bytes / median_ms",
        "metric `bad`: unknown name `bytes`",
    );
    let text = good().replace("ceil_div(n, block)", "ceil(n, block)");
    one_error(&text, "ceil(n, block)", "unknown function `ceil`");
    let text = good().replace("block: [128, 256]", "block: [128, 256]\n  sm_count: [1]");
    one_error(&text, "sm_count: [1]", "`sm_count` is a built-in name");
    let text = good().replace("seed: 1", "seed: 1\nncu_metrics: [dram_bytes]");
    one_error(
        &text,
        "dram_bytes",
        "`dram_bytes` is not an Nsight Compute metric name",
    );
}

#[test]
fn several_launches_need_one_timed() {
    let text = good().replace(
        "launches:\n  - kernel: scale\n",
        "launches:\n  - kernel: scale_reference\n    args: [{f32: 1}, x, out, {u64: n}]\n    grid: ceil_div(n, 256)\n    block: 256\n  - kernel: scale\n",
    );
    one_error(
        &text,
        "launches:",
        "with 2 launches, exactly one needs `timed: true` (0 have it)",
    );
    let ok = text.replace(
        "  - kernel: scale\n",
        "  - kernel: scale\n    timed: true\n",
    );
    let plans = plan(&parse(&ok).unwrap(), &h200()).unwrap();
    assert_eq!((plans[0].launches.len(), plans[0].timed), (2, 1));
}

#[test]
fn errors_of_every_config_are_reported_once_per_site() {
    let text = good().replace("ceil_div(n, 256)", "ceil_div(n, block - 128)");
    one_error(
        &text,
        "ceil_div(n, block - 128)",
        "config `block128`: kernel `scale_reference`: grid: division by zero in ceil_div",
    );
}

#[test]
fn editing_a_kernel_changes_the_digest() {
    let (_d1, a) = load(&good(), "// v1\n");
    let (_d2, b) = load(&good(), "// v2\n");
    assert_ne!(a.unwrap().digest, b.unwrap().digest);
}

#[test]
fn missing_kernel_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(EXPERIMENT_FILE), good()).unwrap();
    let e = Experiment::load(dir.path()).unwrap_err().to_string();
    assert!(e.contains("scale.cu"), "{e}");
}

#[test]
fn the_repository_experiments_plan_without_a_gpu() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (id, configs) in [("day45-occupancy", 10), ("occupancy-sweep", 13 * 11 * 9)] {
        let e = Experiment::load(&root.join("measurements").join(id)).unwrap();
        let plans = crate::measure::run::plan_all(std::slice::from_ref(&e), &h200()).unwrap();
        assert_eq!(plans[0].len(), configs, "{id}");
    }
}

#[test]
fn the_books_example_parses_and_plans() {
    let chapter = include_str!("../../../docs/src/experiments.md");
    let section = &chapter[chapter.find("## A complete example").unwrap()..];
    let fence = section.find("```yaml").unwrap();
    let start = fence + section[fence..].find('\n').unwrap() + 1;
    let yaml = &section[start..start + section[start..].find("```").unwrap()];
    let spec = parse(yaml).unwrap();
    let plans = plan(&spec, &h200()).unwrap();
    let labels: Vec<&str> = plans.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(
        labels,
        ["b128-e1", "b128-e4", "b256-e1", "b256-e4", "big-block"]
    );
    assert_eq!(plans[3].params["grid_cap"], 264);
    assert_eq!(plans[0].params["grid_cap"], 132 * 32);
    assert_eq!(plans[3].launches[0].kernel, "scale_ept4");
    // The string-axis example: labels as the chapter says, kernel names with their `_`.
    let section = &chapter[chapter.find("## String axes").unwrap()..];
    let fence = section.find("```yaml").unwrap();
    let start = fence + section[fence..].find('\n').unwrap() + 1;
    let yaml = &section[start..start + section[start..].find("```").unwrap()];
    let plans = plan(&parse(yaml).unwrap(), &h200()).unwrap();
    let labels: Vec<&str> = plans.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "naive-b128",
            "naive-b256",
            "unrolled-4-b128",
            "unrolled-4-b256",
            "grid-stride-b128",
            "grid-stride-b256"
        ]
    );
    assert_eq!(plans[2].launches[0].kernel, "scale_unrolled_4");
}

/// The scaffold with three kernels to choose by a string axis.
fn variants() -> (String, String) {
    let text = good()
        .replace(
            "axes:\n  block: [128, 256]             # one config per value: labels block128, block256",
            "axes:\n  variant: [naive, tiled, padded_2]\n  block: [128, 256]",
        )
        .replace("  - kernel: scale\n", "  - kernel: \"scale_{variant}\"\n")
        .replace(
            "compile_options: [--std=c++17]",
            "compile_options: [--std=c++17, \"-DVARIANT_{variant}=1\", \"-DBLOCK={block}\"]",
        );
    let mut kernel = KERNEL.to_string();
    for v in ["naive", "tiled", "padded_2"] {
        kernel.push_str(&format!(
            "extern \"C\" __global__ void scale_{v}(float a, const float* x, float* out, unsigned long long n) {{}}\n"
        ));
    }
    (text, kernel)
}

#[test]
fn string_axes_name_kernels_labels_and_compile_options() {
    let (text, kernel) = variants();
    let (_dir, e) = load(&text, &kernel);
    let e = e.unwrap();
    let plans = crate::measure::run::plan_all(std::slice::from_ref(&e), &h200())
        .unwrap()
        .remove(0);
    let labels: Vec<&str> = plans.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "naive-block128",
            "naive-block256",
            "tiled-block128",
            "tiled-block256",
            "padded-2-block128",
            "padded-2-block256"
        ]
    );
    let tiled = &plans[3];
    assert_eq!(tiled.launches[0].kernel, "scale_tiled");
    assert_eq!(tiled.strings["variant"], "tiled");
    assert!(!tiled.params.contains_key("variant"));
    assert_eq!(
        tiled.compile_options,
        ["--std=c++17", "-DVARIANT_tiled=1", "-DBLOCK=256"]
    );
    // The string is in each row's label; it is no recorded quantity to tabulate.
    assert!(e.knows("block") && !e.knows("variant"));
    // A template may use it too, and an override may select on it.
    let text = text
        .replace(
            "axes:",
            "label: \"{variant}-b{block}-t{tile}\"\noverrides:\n  - where: {variant: tiled}\n    set: {tile: 32}\naxes:",
        )
        .replace("  n: 1 << 24", "  tile: 1\n  n: 1 << 24");
    // `{variant}` spells `padded_2` as the default label does, `padded-2`; the kernel
    // name, a template too, keeps the `_`.
    let plans = plan(&parse(&text).unwrap(), &h200()).unwrap();
    let labels: Vec<&str> = plans.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(labels[0], "naive-b128-t1");
    assert_eq!(labels[2], "tiled-b128-t32");
    assert_eq!(labels[4], "padded-2-b128-t1");
    assert_eq!(plans[4].launches[0].kernel, "scale_padded_2");
}

#[test]
fn a_string_axis_in_arithmetic_is_an_error_at_its_line_and_column() {
    let (text, kernel) = variants();
    let text = text.replace("grid: ceil_div(n, block)", "grid: ceil_div(n, variant)");
    let (_dir, e) = load(&text, &kernel);
    let all = e
        .unwrap_err()
        .flatten()
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>();
    assert_eq!(all.len(), 1, "{all:#?}");
    let at = place(&text, "grid: |ceil_div(n, variant)");
    assert!(
        all[0].contains(&format!("experiment.yaml:{at}: `variant` is a string axis (naive, tiled, padded_2): it can name kernels, labels and compile options as `{{variant}}`, but not be used in arithmetic (`ceil_div(n, variant)`)")),
        "{all:#?}"
    );
}

#[test]
fn an_axis_mixing_strings_and_numbers_is_an_error_at_the_odd_value() {
    let text = good().replace("block: [128, 256]", "block: [128, blok, 256]");
    let all = parse(&text)
        .unwrap_err()
        .flatten()
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>();
    assert_eq!(all.len(), 1, "{all:#?}");
    let at = place(&text, "block: [128, |blok");
    assert!(all[0].contains(&format!("experiment.yaml:{at}: axis `block`: `blok` is a string (or an unknown name), but the axis's first value makes it an axis of numbers")), "{all:#?}");
    // A config setting a string axis gives a string.
    let (text, kernel) = variants();
    let text = text.replace(
        "axes:",
        "configs:\n  - {label: odd, variant: 2 * 3, block: 64}\naxes:",
    );
    let (_dir, e) = load(&text, &kernel);
    let all = e
        .unwrap_err()
        .flatten()
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>();
    let at = place(&text, "variant: |2 * 3");
    assert!(
        all[0].contains(&format!(
            "experiment.yaml:{at}: `variant` is a string axis: `2 * 3` is not a string value"
        )),
        "{all:#?}"
    );
}

#[test]
fn an_error_is_at_its_value_whatever_else_repeats_the_text() {
    // The title and a comment hold the bad value's text before the value itself.
    let text = good()
        .replace(
            "title: \"scale: scale a vector\"",
            "title: \"scale by 2 * warps\"",
        )
        .replace("block: [128, 256]", "block: [128, 2 * warps]  # 2 * warps");
    let all = errors(&text);
    assert_eq!(all.len(), 1, "{all:#?}");
    let at = place(&text, "block: [128, |2 * warps]");
    assert!(
        all[0].contains(&format!(
            "experiment.yaml:{at}: axis `block`: unknown name `warps` in `2 * warps`"
        )),
        "{all:#?}"
    );
    // Two launches with the same kernel and the same bad grid text: each at its own line.
    let text = good()
        .replace("grid: ceil_div(n, 256)", "grid: ceil_div(n, blocks)")
        .replace("grid: ceil_div(n, block)", "grid: ceil_div(n, blocks)");
    let all = errors(&text);
    assert_eq!(all.len(), 2, "{all:#?}");
    let lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("ceil_div(n, blocks)"))
        .map(|(i, _)| i + 1)
        .collect();
    for (e, line) in all.iter().zip(lines) {
        assert!(e.contains(&format!("experiment.yaml:{line}:")), "{all:#?}");
    }
}

#[test]
fn kernel_file_names_are_an_allow_list() {
    for bad in ["\"a\\\"b.cu\"", "../x.cu", ".hidden.cu", "\"a b.cu\""] {
        let text = good().replace("kernels: [scale.cu]", &format!("kernels: [{bad}]"));
        let all = parse(&text)
            .unwrap_err()
            .flatten()
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>();
        assert!(
            all.iter()
                .any(|e| e.contains("must be a file name beside the experiment file")),
            "{bad}: {all:#?}"
        );
    }
}

// ---- pointer chases, clusters, repeated and graph-timed launches ----

/// The scaffold with one more input buffer (not passed to the kernel), written `spec`.
fn with_buffer(spec: &str) -> String {
    good().replace("  out: {type", &format!("  chain: {spec}\n  out: {{type"))
}

#[test]
fn a_cycle_fill_plans_and_round_trips_through_serde() {
    let text = with_buffer("{type: u32, length: 32 * 1024, fill: {cycle: 32}}");
    assert_eq!(errors(&text), Vec::<String>::new());
    let plans = plan(&parse(&text).unwrap(), &h200()).unwrap();
    let chain = &plans[0].buffers[1];
    assert_eq!((chain.len, &chain.fill), (32 * 1024, &Fill::Cycle(32)));
    // As a plan or record describes it, and back.
    let json = serde_json::to_string(&chain.fill).unwrap();
    assert_eq!(json, r#"{"cycle":32}"#);
    assert_eq!(
        serde_json::from_str::<Fill>(&json).unwrap(),
        Fill::Cycle(32)
    );
    let i32_chain = with_buffer("{type: i32, length: 64, fill: {cycle: 1}}");
    assert_eq!(errors(&i32_chain), Vec::<String>::new());
}

#[test]
fn a_cycle_fill_needs_a_4_byte_integer_buffer_and_a_stride() {
    let text = with_buffer("{type: f32, length: 64, fill: {cycle: 32}}");
    one_error(
        &text,
        "fill: |{cycle: 32}",
        "buffer `chain`: a cycle fill holds element indexes: it needs u32 or i32, not f32",
    );
    let text = with_buffer("{type: u8, length: 64, fill: {cycle: 32}}");
    one_error(&text, "fill: |{cycle: 32}", "it needs u32 or i32, not u8");
    let text = with_buffer("{type: u32, length: 64, fill: {cycle: 0}}");
    one_error(
        &text,
        "fill: |{cycle: 0}",
        "buffer `chain`: a cycle's stride must be at least 1",
    );
}

#[test]
fn a_cycle_fill_needs_whole_nodes_at_least_two_and_indexes_that_fit() {
    let text = with_buffer("{type: u32, length: 100, fill: {cycle: 32}}");
    one_error(
        &text,
        "fill: |{cycle: 32}",
        "config `block128` (and 1 more): buffer `chain`: a cycle with stride 32 needs a length that is a multiple of it, not 100",
    );
    let text = with_buffer("{type: u32, length: 32, fill: {cycle: 32}}");
    one_error(
        &text,
        "fill: |{cycle: 32}",
        "a cycle needs at least 2 nodes: length 32 with stride 32 makes 1",
    );
    let text = with_buffer("{type: i32, length: 1 << 32, fill: {cycle: 1}}");
    one_error(
        &text,
        "fill: |{cycle: 1}",
        "the last node's index 4294967295 does not fit i32 (at most 2147483647)",
    );
}

#[test]
fn a_cluster_launch_plans_its_dimensions() {
    let text = good().replace(
        "    grid: ceil_div(n, block)\n    block: block\n",
        "    grid: ceil_div(n, block)\n    block: block\n    cluster: [2, 1, 1]\n",
    );
    assert_eq!(errors(&text), Vec::<String>::new());
    let plans = plan(&parse(&text).unwrap(), &h200()).unwrap();
    assert_eq!(plans[0].launches[0].cluster, Some([2, 1, 1]));
    // One expression is x.
    let one = text.replace("cluster: [2, 1, 1]", "cluster: 4");
    let plans = plan(&parse(&one).unwrap(), &h200()).unwrap();
    assert_eq!(plans[0].launches[0].cluster, Some([4, 1, 1]));
    // Without `cluster`, the plain launch, as before.
    let plans = plan(&parse(&good()).unwrap(), &h200()).unwrap();
    assert_eq!(plans[0].launches[0].cluster, None);
    let spec = parse(&text).unwrap();
    assert!(spec
        .launch_quantity_names()
        .contains(&"max_active_clusters"));
    assert!(!parse(&good())
        .unwrap()
        .launch_quantity_names()
        .contains(&"max_active_clusters"));
}

#[test]
fn a_cluster_must_divide_the_grid_and_stay_portable() {
    let launch = |cluster: &str| {
        good().replace(
            "    grid: ceil_div(n, block)\n    block: block\n",
            &format!("    grid: [6, 4, 2]\n    block: block\n    cluster: {cluster}\n"),
        )
    };
    assert_eq!(errors(&launch("[2, 4, 1]")), Vec::<String>::new());
    one_error(
        &launch("[4, 1]"),
        "cluster: |[4, 1]",
        "config `block128` (and 1 more): kernel `scale`: grid x 6 is not a multiple of the cluster's x 4",
    );
    one_error(
        &launch("[3, 4, 1]"),
        "cluster: |[3, 4, 1]",
        "kernel `scale`: a cluster of [3, 4, 1] is 12 blocks, more than the portable maximum of 8",
    );
    one_error(
        &launch("[1, 1, 0]"),
        "cluster: [1, 1, |0]",
        "kernel `scale`: cluster dimension 0 (from `0`) must be from 1",
    );
    one_error(
        &launch("[1, 1, 1, 1]"),
        "cluster: |[1, 1, 1, 1]",
        "kernel `scale`: `cluster` has 1 to 3 dimensions, not 4",
    );
}

#[test]
fn repeat_and_graph_plan_on_the_timed_launch() {
    let text = good().replace(
        "    grid: ceil_div(n, block)\n    block: block\n",
        "    grid: ceil_div(n, block)\n    block: block\n    repeat: block / 2\n    graph: true\n",
    );
    assert_eq!(errors(&text), Vec::<String>::new());
    let plans = plan(&parse(&text).unwrap(), &h200()).unwrap();
    let s = plans[1].launches[0].sampling;
    assert_eq!((s.repeat, s.graph), (128, true));
    // The reference runs once.
    let r = &plans[1].reference.as_ref().unwrap()[0];
    assert!(r.sampling.is_once());
    assert!(
        plan(&parse(&good()).unwrap(), &h200()).unwrap()[0].launches[0]
            .sampling
            .is_once()
    );
    assert!(parse(&text)
        .unwrap()
        .launch_quantity_names()
        .contains(&"launches_per_sample"));
}

#[test]
fn graph_may_be_decided_per_config_by_an_expression() {
    // The good fixture's axis is block: 128, 256. A graph for the larger block only.
    let text = good().replace(
        "    grid: ceil_div(n, block)\n    block: block\n",
        "    grid: ceil_div(n, block)\n    block: block\n    repeat: 10\n    graph: floor_div(block, 256)\n",
    );
    assert_eq!(errors(&text), Vec::<String>::new());
    let plans = plan(&parse(&text).unwrap(), &h200()).unwrap();
    let graphs: Vec<bool> = plans.iter().map(|p| p.launches[0].sampling.graph).collect();
    assert_eq!(graphs, [false, true]);
    let bad = good().replace(
        "    grid: ceil_div(n, block)\n    block: block\n",
        "    grid: ceil_div(n, block)\n    block: block\n    graph: block / 64 - 1\n",
    );
    one_error(
        &bad,
        "graph: |block / 64 - 1",
        "config `block256`: kernel `scale`: graph is 3 (from `block / 64 - 1`), not 1 (a graph) or 0 (one by one)",
    );
    let unknown = good().replace(
        "    grid: ceil_div(n, block)\n    block: block\n",
        "    grid: ceil_div(n, block)\n    block: block\n    graph: use_graph\n",
    );
    assert_eq!(errors(&unknown).len(), 1, "{:?}", errors(&unknown));
}

#[test]
fn repeat_is_bounded_and_only_on_the_timed_launch() {
    let repeat = |k: &str| {
        good().replace(
            "    grid: ceil_div(n, block)\n    block: block\n",
            &format!("    grid: ceil_div(n, block)\n    block: block\n    repeat: {k}\n"),
        )
    };
    one_error(
        &repeat("block - 128"),
        "repeat: |block - 128",
        "config `block128`: kernel `scale`: repeat 0 (from `block - 128`) must be from 1 to 100000",
    );
    one_error(
        &repeat("100001"),
        "repeat: |100001",
        "repeat 100001 (from `100001`) must be from 1 to 100000",
    );
    let text = good().replace(
        "      grid: ceil_div(n, 256)\n      block: 256\n",
        "      grid: ceil_div(n, 256)\n      block: 256\n      graph: true\n",
    );
    one_error(
        &text,
        "      |graph: true",
        "kernel `scale_reference`: `graph` belongs on the timed launch only (this launch runs once)",
    );
    let two = good().replace(
        "launches:\n  - kernel: scale\n",
        "launches:\n  - kernel: scale_reference\n    args: [{f32: 1}, x, out, {u64: n}]\n    grid: ceil_div(n, 256)\n    block: 256\n    repeat: 10\n  - kernel: scale\n    timed: true\n",
    );
    one_error(
        &two,
        "    |repeat: 10",
        "kernel `scale_reference`: `repeat` belongs on the timed launch only",
    );
}

#[test]
fn before_each_sample_is_only_on_an_untimed_launch_and_host_time_is_readable() {
    // Before the timed launch, ahead of every sample: accepted, and a metric may read the
    // host's enqueue time.
    let two = good().replace(
        "launches:\n  - kernel: scale\n",
        "launches:\n  - kernel: scale_reference\n    args: [{f32: 1}, x, out, {u64: n}]\n    grid: ceil_div(n, 256)\n    block: 256\n    before_each_sample: true\n  - kernel: scale\n    timed: true\n",
    );
    let two = two.replace(
        "metrics:\n",
        "metrics:\n  host_us: {value: host_median_ms * 1000}\n",
    );
    assert_eq!(errors(&two), Vec::<String>::new());
    // On the timed launch itself it would time nothing new: refused at the key.
    let timed = good().replace(
        "    grid: ceil_div(n, block)\n    block: block\n",
        "    grid: ceil_div(n, block)\n    block: block\n    before_each_sample: true\n",
    );
    one_error(
        &timed,
        "    |before_each_sample: true",
        "kernel `scale`: `before_each_sample` belongs on an untimed launch of `launches`",
    );
    // In the reference's launches, which are never timed: refused too.
    let reference = good().replace(
        "      grid: ceil_div(n, 256)\n      block: 256\n",
        "      grid: ceil_div(n, 256)\n      block: 256\n      before_each_sample: true\n",
    );
    one_error(
        &reference,
        "      |before_each_sample: true",
        "kernel `scale_reference`: `before_each_sample` belongs on an untimed launch",
    );
}

#[test]
fn metrics_may_read_launch_facts_but_not_take_their_names() {
    let metric = |m: &str| good().replace("metrics:\n", &format!("metrics:\n  {m}\n"));
    let ok = metric("us: {value: median_ms * 1000 / launches_per_sample}");
    assert_eq!(errors(&ok), Vec::<String>::new());
    one_error(
        &metric("clusters: {value: max_active_clusters}"),
        "clusters: {value: |max_active_clusters}",
        "metric `clusters`: `max_active_clusters` needs a `cluster` on the timed launch",
    );
    one_error(
        &metric("launches_per_sample: {value: 1}"),
        "  |launches_per_sample: {value: 1}",
        "metric `launches_per_sample` has a built-in name",
    );
    let param = good().replace("  n: 1 << 24", "  max_active_clusters: 1\n  n: 1 << 24");
    one_error(
        &param,
        "  |max_active_clusters: 1",
        "`max_active_clusters` is a built-in name",
    );
}

#[test]
fn the_books_chase_and_cluster_examples_parse_and_plan() {
    let chapter = include_str!("../../../docs/src/experiments.md");
    let section = &chapter[chapter.find("## Pointer chases, clusters").unwrap()..];
    let mut examples = Vec::new();
    let mut rest = section;
    for _ in 0..2 {
        let fence = rest.find("```yaml").unwrap();
        let start = fence + rest[fence..].find('\n').unwrap() + 1;
        let end = start + rest[start..].find("```").unwrap();
        examples.push(&rest[start..end]);
        rest = &rest[end + 3..];
    }
    let chase = plan(&parse(examples[0]).unwrap(), &h200()).unwrap();
    let labels: Vec<&str> = chase.iter().map(|p| p.label.as_str()).collect();
    assert_eq!(labels, ["n1024", "n65536", "n8388608"]);
    assert_eq!(chase[2].buffers[0].fill, Fill::Cycle(32));
    assert_eq!(chase[2].buffers[0].len, (1 << 23) * 32);
    let s = chase[0].launches[0].sampling;
    assert_eq!((s.repeat, s.graph), (10, true));
    let clusters = plan(&parse(examples[1]).unwrap(), &h200()).unwrap();
    assert_eq!(clusters.len(), 8);
    assert_eq!(clusters[6].label, "c8-b128");
    assert_eq!(clusters[6].launches[0].cluster, Some([8, 1, 1]));
    assert_eq!(clusters[6].launches[0].grid, [132 * 8, 1, 1]);
}

#[test]
fn metrics_may_read_observations_but_not_take_their_names() {
    let metric = |m: &str| good().replace("metrics:\n", &format!("metrics:\n  {m}\n"));
    let ok = metric("watts: {value: power_w * sm_clock_mhz / launches_per_sample}");
    assert_eq!(errors(&ok), Vec::<String>::new());
    one_error(
        &metric("power_w: {value: 1}"),
        "  |power_w: {value: 1}",
        "metric `power_w` has a built-in name (an observation)",
    );
    let param = good().replace("  n: 1 << 24", "  sm_clock_mhz: 1\n  n: 1 << 24");
    one_error(
        &param,
        "  |sm_clock_mhz: 1",
        "`sm_clock_mhz` is a built-in name",
    );
    // A timed experiment's records may have the board power; a table may cite it.
    let (_dir, e) = load(&good(), KERNEL);
    assert!(e.unwrap().knows("power_w"));
}

#[test]
fn arch_specific_targets_the_nodes_own_variant_and_refuses_an_older_node() {
    let (_dir, plain) = load(&good(), KERNEL);
    assert_eq!(plain.unwrap().target_arch("sm_90").unwrap(), "sm_90");
    let text = good().replace("seed: 1\n", "seed: 1\narch_specific: true\n");
    let (_dir, e) = load(&text, KERNEL);
    let e = e.unwrap();
    assert_eq!(e.target_arch("sm_90").unwrap(), "sm_90a");
    assert_eq!(e.target_arch("sm_100").unwrap(), "sm_100a");
    // Ampere and Ada have no arch-specific target: an error at the key, not NVRTC's.
    let err = e.target_arch("sm_89").unwrap_err().to_string();
    let at = place(&text, "arch_specific: |true");
    assert!(err.contains(&format!("experiment.yaml:{at}:")), "{err}");
    assert!(err.contains("sm_89 has no arch-specific target"), "{err}");
    assert!(e.target_arch("sm_x0").is_err());
}

#[test]
fn a_record_compiled_for_the_arch_specific_target_is_of_the_node() {
    assert!(option_names_arch("--gpu-architecture=sm_90", "sm_90"));
    assert!(option_names_arch("--gpu-architecture=sm_90a", "sm_90"));
    assert!(!option_names_arch("--gpu-architecture=sm_90b", "sm_90"));
    assert!(!option_names_arch("--gpu-architecture=sm_900", "sm_90"));
    assert!(!option_names_arch("--gpu-architecture=sm_89", "sm_90"));
    assert!(!option_names_arch("--gpu-architecture=sm_9", "sm_90"));
    assert!(!option_names_arch("--std=c++17", "sm_90"));
}
