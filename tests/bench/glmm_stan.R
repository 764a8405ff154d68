# Stan as the peer of svi's Poisson GLMM (not a test): NUTS gives the reference posterior of the
# fixed effects, Stan's ADVI (meanfield) the peer, on exactly the design matrix svi fits.
#
#     Rscript tests/bench/glmm_stan.R SPLIT_DIR VARIANT SEED [PRIOR_SD [A0 [B0]]]
#         [--json PATH] [--cache DIR] [--cores N] [--advi-param centred|noncentred]
#
# SPLIT_DIR is what `svi split` wrote for the labelled kind with groups: train.svm (count label,
# then index:value, 1-based, as svi sees the columns), features.txt and train_groups.txt. Only
# the training rows are fitted. VARIANT is gamma-normal or gamma-gamma:
#   gamma-normal  beta_d ~ N(0, prior_sd), tau ~ Gamma(a0, rate b0) (a precision),
#                 b_g ~ N(0, 1/sqrt(tau)), y_i ~ Poisson(exp(x_i'beta + b_g(i)))
#   gamma-gamma   beta as above, alpha ~ Gamma(a0, rate b0), u_g ~ Gamma(alpha, rate alpha),
#                 y_i ~ Poisson(u_g(i) exp(x_i'beta))
# Defaults prior_sd 10, a0 1, b0 1. NUTS: 4 chains x 2000 iterations (1000 warm-up), the
# gamma-normal random effects non-centred (same posterior, no funnel). ADVI: rstan's vb() with
# its defaults and iter = 20000 (--advi-tol sets its tol_rel_obj, default vb's 0.01: its
# default stops on this model long before its optimum), the model as written (centred); the non-centred form only if
# that fails, or when --advi-param noncentred asks (gamma-normal only). Both use SEED. Times
# are wall seconds of the sampling and of vb(), without compiling, which is timed on its own
# (near 0 once the model is cached: --cache, default SPLIT_DIR/stan_cache). --cores runs the
# chains in parallel (default 1: one after another). With collinear columns (one-hot levels
# and an intercept) it also prints the part of beta the data identify.
# Needs Debian's r-cran-rstan and r-cran-jsonlite.

suppressPackageStartupMessages({
    library(rstan)
    library(jsonlite)
})

usage <- function() {
    cat("usage: Rscript glmm_stan.R SPLIT_DIR gamma-normal|gamma-gamma SEED",
        "[PRIOR_SD [A0 [B0]]] [--json PATH] [--cache DIR] [--cores N]",
        "[--advi-param centred|noncentred] [--advi-tol TOL]\n", file = stderr())
    quit(status = 2)
}

args <- commandArgs(trailingOnly = TRUE)
opts <- list(json = NULL, cache = NULL, cores = "1", "advi-param" = "centred",
             "advi-tol" = "0.01")
positional <- character()
i <- 1
while (i <= length(args)) {
    a <- args[i]
    if (startsWith(a, "--")) {
        key <- substring(a, 3)
        if (!key %in% names(opts) || i == length(args)) usage()
        opts[[key]] <- args[i + 1]
        i <- i + 2
    } else {
        positional <- c(positional, a)
        i <- i + 1
    }
}
if (length(positional) < 3 || length(positional) > 6) usage()
split_dir <- positional[1]
variant <- positional[2]
seed <- as.integer(positional[3])
if (!variant %in% c("gamma-normal", "gamma-gamma") || is.na(seed)) usage()
if (!opts[["advi-param"]] %in% c("centred", "noncentred") ||
    (variant == "gamma-gamma" && opts[["advi-param"]] == "noncentred")) usage()
num_or <- function(k, default) if (length(positional) >= k) as.numeric(positional[k]) else default
prior_sd <- num_or(4, 10)
a0 <- num_or(5, 1)
b0 <- num_or(6, 1)
cores <- as.integer(opts$cores)
cache <- if (is.null(opts$cache)) file.path(split_dir, "stan_cache") else opts$cache

# ---- the split ------------------------------------------------------------------------------

feature_lines <- readLines(file.path(split_dir, "features.txt"))
feature_lines <- feature_lines[!startsWith(feature_lines, "#") & nzchar(trimws(feature_lines))]
feature_index <- as.integer(sub("^\\s*(\\d+)\\s.*$", "\\1", feature_lines))
features <- sub("^\\s*\\d+\\s+", "", feature_lines)
D <- length(features)
stopifnot(identical(feature_index, seq_len(D)))

# LIBSVM keeps only non-zeros: a dense matrix of zeros filled row by row.
svm <- strsplit(trimws(readLines(file.path(split_dir, "train.svm"))), "\\s+")
N <- length(svm)
y <- as.numeric(vapply(svm, `[`, "", 1))
if (any(is.na(y) | y < 0 | y != round(y))) stop("train.svm: labels are not counts")
X <- matrix(0, N, D)
for (r in seq_len(N)) {
    pairs <- svm[[r]][-1]
    if (length(pairs) == 0) next
    idx <- as.integer(sub(":.*$", "", pairs))
    if (any(idx > D)) stop("train.svm: index beyond features.txt's ", D, " columns")
    X[r, idx] <- as.numeric(sub("^[^:]*:", "", pairs))
}

group_names <- readLines(file.path(split_dir, "train_groups.txt"))
if (length(group_names) != N) stop("train_groups.txt has ", length(group_names),
                                   " lines for ", N, " rows")
# Groups numbered in order of first appearance, as svi numbers them.
g <- match(group_names, unique(group_names))
G <- max(g)

# Collinear columns leave the likelihood flat along a direction; only the prior pins it, so
# the fixed effects' sds there are large. Said, not fixed: svi fits the same matrix.
sv <- svd(X)
rank <- sum(sv$d > 1e-9 * sv$d[1])
null_space <- sv$v[, -seq_len(rank), drop = FALSE]
if (rank < D) {
    cat(sprintf("note: the design matrix has rank %d < %d columns; flat direction(s):\n", rank, D))
    for (k in seq_len(ncol(null_space)))
        cat("  ", paste(sprintf("%+.3f %s", null_space[, k], features)[abs(null_space[, k]) > 1e-6],
                        collapse = ", "), "\n")
}

# ---- the models -----------------------------------------------------------------------------

# One program per variant; `noncentred` (data) picks the parameterisation of the random effects,
# so NUTS and ADVI share one compiled model.
stan_code <- list(
    "gamma-normal" = "
data {
  int<lower=1> N; int<lower=1> D; int<lower=1> G;
  matrix[N, D] X; int<lower=0> y[N]; int<lower=1, upper=G> g[N];
  real<lower=0> prior_sd; real<lower=0> a0; real<lower=0> b0;
  int<lower=0, upper=1> noncentred;
}
parameters {
  vector[D] beta;
  real<lower=0> tau;
  vector[G] z;  // b itself, or b * sqrt(tau) when non-centred
}
model {
  vector[G] b;
  if (noncentred) {
    b = z / sqrt(tau);
    z ~ std_normal();
  } else {
    b = z;
    z ~ normal(0, 1 / sqrt(tau));
  }
  beta ~ normal(0, prior_sd);
  tau ~ gamma(a0, b0);
  y ~ poisson_log(X * beta + b[g]);
}
",
    "gamma-gamma" = "
data {
  int<lower=1> N; int<lower=1> D; int<lower=1> G;
  matrix[N, D] X; int<lower=0> y[N]; int<lower=1, upper=G> g[N];
  real<lower=0> prior_sd; real<lower=0> a0; real<lower=0> b0;
  int<lower=0, upper=1> noncentred;
}
parameters {
  vector[D] beta;
  real<lower=0> alpha;
  vector<lower=0>[G] u;
}
model {
  beta ~ normal(0, prior_sd);
  alpha ~ gamma(a0, b0);
  u ~ gamma(alpha, alpha);
  y ~ poisson_log(X * beta + log(u[g]));
}
")
hyper <- if (variant == "gamma-normal") "tau" else "alpha"
# A gamma's shape has no location-scale form to non-centre: gamma-gamma is centred for both.
nuts_noncentred <- variant == "gamma-normal"

# ---- compile (cached) -----------------------------------------------------------------------

dir.create(cache, recursive = TRUE, showWarnings = FALSE)
rstan_options(auto_write = TRUE)  # saves the compiled model as an .rds beside the .stan file
# Debian's r-cran-bh ships no headers of its own (it depends on libboost-dev): point rstan there.
if (!nzchar(system.file("include", package = "BH")) && file.exists("/usr/include/boost"))
    rstan_options(boost_lib = "/usr/include")
stan_file <- file.path(cache, paste0("glmm_", sub("-", "_", variant), ".stan"))
# Rewritten only when changed: a newer .stan file than its .rds makes rstan compile again.
code <- stan_code[[variant]]
if (!file.exists(stan_file) || readChar(stan_file, file.size(stan_file)) != code)
    writeLines(code, stan_file, sep = "")
cached <- file.exists(sub("\\.stan$", ".rds", stan_file))
t0 <- Sys.time()
model <- stan_model(file = stan_file)
compile_seconds <- as.numeric(Sys.time() - t0, units = "secs")

data <- list(N = N, D = D, G = G, X = X, y = as.integer(y), g = g,
             prior_sd = prior_sd, a0 = a0, b0 = b0)

warnings_seen <- character()
keep_warnings <- function(expr) withCallingHandlers(expr, warning = function(w) {
    text <- trimws(conditionMessage(w))
    if (nzchar(text)) warnings_seen <<- c(warnings_seen, text)
    invokeRestart("muffleWarning")
})

# ---- NUTS -----------------------------------------------------------------------------------

t0 <- Sys.time()
nuts <- keep_warnings(sampling(model, data = c(data, noncentred = as.integer(nuts_noncentred)),
                               chains = 4, iter = 2000, warmup = 1000, seed = seed,
                               cores = cores, refresh = 0))
nuts_seconds <- as.numeric(Sys.time() - t0, units = "secs")
nuts_warnings <- warnings_seen
warnings_seen <- character()

pars <- c(paste0("beta[", seq_len(D), "]"), hyper)
nuts_draws <- as.matrix(nuts, pars = c("beta", hyper))[, pars, drop = FALSE]
nuts_summary <- summary(nuts, pars = c("beta", hyper))$summary[pars, , drop = FALSE]
sampler <- get_sampler_params(nuts, inc_warmup = FALSE)
divergent <- sum(vapply(sampler, function(s) sum(s[, "divergent__"]), 0))
max_depth <- sum(vapply(sampler, function(s) sum(s[, "treedepth__"] >= 10), 0))
chain_seconds <- colSums(t(get_elapsed_time(nuts)))  # warm-up + sampling of each chain

# ---- ADVI -----------------------------------------------------------------------------------

run_vb <- function(noncentred) {
    # vb() prints its ELBO table; captured to read the iteration it stopped at.
    f <- NULL
    t0 <- Sys.time()
    text <- capture.output(f <- keep_warnings(suppressMessages(
        vb(model, data = c(data, noncentred = as.integer(noncentred)),
           algorithm = "meanfield", seed = seed, iter = 20000,
           tol_rel_obj = as.numeric(opts[["advi-tol"]])))))
    if (!inherits(f, "stanfit") || f@mode != 0) stop("vb() returned no draws")
    list(fit = f, seconds = as.numeric(Sys.time() - t0, units = "secs"), text = text)
}
advi_noncentred <- opts[["advi-param"]] == "noncentred"
advi <- tryCatch(run_vb(advi_noncentred), error = function(e) {
    if (advi_noncentred || variant != "gamma-normal") stop(e)
    cat("ADVI on the centred model failed (", conditionMessage(e), "): the non-centred one\n",
        sep = "")
    NULL
})
if (is.null(advi)) {
    advi_noncentred <- TRUE
    advi <- run_vb(TRUE)
}
advi_warnings <- warnings_seen
# The ELBO table's rows ("iter ELBO delta_mean delta_median [notes]"): the last row's iteration
# is where it stopped.
vb_lines <- sub("^Chain [0-9]+: ", "", advi$text)
elbo_rows <- grep("^\\s*[0-9]+\\s+-?[0-9.]+(e[-+]?[0-9]+)?\\s+[0-9.]+\\s+[0-9.]+", vb_lines,
                  value = TRUE)
last_row <- if (length(elbo_rows)) strsplit(trimws(tail(elbo_rows, 1)), "\\s+")[[1]] else NULL
advi_iterations <- if (is.null(last_row)) NA else as.integer(last_row[1])
advi_elbo <- if (is.null(last_row)) NA else as.numeric(last_row[2])
eta_line <- grep("eta = ", vb_lines, value = TRUE)
advi_eta <- as.numeric(sub(".*eta = ([0-9.eE+-]+).*", "\\1", eta_line[1]))  # NA if none
converged <- any(grepl("CONVERGED", vb_lines))

# Moments of the 1000 draws vb() returns (rstan's default output_samples): the Monte Carlo error
# of a mean is about its ADVI sd / sqrt(1000), a few hundredths of it.
advi_draws <- as.matrix(advi$fit, pars = c("beta", hyper))[, pars, drop = FALSE]

# ---- report ---------------------------------------------------------------------------------

nuts_mean <- colMeans(nuts_draws)
nuts_sd <- apply(nuts_draws, 2, sd)
advi_mean <- colMeans(advi_draws)
advi_sd <- apply(advi_draws, 2, sd)
shift <- (advi_mean - nuts_mean) / nuts_sd
names_shown <- c(features, hyper)
fixed <- seq_len(D)

cat(sprintf("\n%s, seed %d, prior_sd %g, a0 %g, b0 %g: %d rows, %d columns, %d groups\n",
            variant, seed, prior_sd, a0, b0, N, D, G))
cat(sprintf("NUTS: 4 chains x 2000 (1000 warm-up), %s; ADVI meanfield, %s\n\n",
            if (nuts_noncentred) "non-centred" else "centred",
            if (!advi_noncentred) "centred"
            else if (opts[["advi-param"]] == "noncentred") "non-centred (asked for)"
            else "non-centred (the centred model failed)"))
width <- max(nchar(names_shown), 7)
cat(sprintf("%-*s %10s %9s %10s %9s %12s %9s %7s %7s\n", width, "feature", "NUTS mean",
            "NUTS sd", "ADVI mean", "ADVI sd", "ADVI-NUTS/sd", "sd ratio", "R-hat", "n_eff"))
for (k in seq_along(pars))
    cat(sprintf("%-*s %10.4f %9.4f %10.4f %9.4f %12.2f %9.2f %7.3f %7.0f\n", width,
                names_shown[k], nuts_mean[k], nuts_sd[k], advi_mean[k], advi_sd[k], shift[k],
                advi_sd[k] / nuts_sd[k], nuts_summary[k, "Rhat"], nuts_summary[k, "n_eff"]))
# With collinear columns each beta_d alone is pinned by the prior only; the part of beta the
# data identify (beta projected onto X's row space) is what NUTS and ADVI should agree on.
if (rank < D) {
    identify <- function(draws) draws[, fixed, drop = FALSE] %*% (diag(D) - tcrossprod(null_space))
    nuts_id <- identify(nuts_draws)
    advi_id <- identify(advi_draws)
    id <- list(nuts_mean = colMeans(nuts_id), nuts_sd = apply(nuts_id, 2, sd),
               advi_mean = colMeans(advi_id), advi_sd = apply(advi_id, 2, sd))
    cat("\nthe identified part of beta (the flat direction(s) projected out):\n")
    for (k in fixed)
        cat(sprintf("%-*s %10.4f %9.4f %10.4f %9.4f %12.2f %9.2f\n", width, features[k],
                    id$nuts_mean[k], id$nuts_sd[k], id$advi_mean[k], id$advi_sd[k],
                    (id$advi_mean[k] - id$nuts_mean[k]) / id$nuts_sd[k],
                    id$advi_sd[k] / id$nuts_sd[k]))
}
cat(sprintf("\nNUTS sampling: %.2f s wall (%d core%s; the chains' own warm-up + sampling: %s s)\n",
            nuts_seconds, cores, if (cores == 1) "" else "s",
            paste(sprintf("%.2f", chain_seconds), collapse = ", ")))
cat(sprintf("ADVI: %.2f s wall, %s iterations (eta %s, last ELBO %s), %s\n", advi$seconds,
            ifelse(is.na(advi_iterations), "?", advi_iterations), format(advi_eta),
            format(advi_elbo), if (converged) "converged" else "did NOT report convergence"))
cat(sprintf("compile: %.2f s (%s)\n", compile_seconds,
            if (cached) "loaded from the cache" else "compiled"))
cat(sprintf("NUTS: %d divergent, %d at max tree depth, max R-hat %.3f (all parameters: %.3f)\n",
            divergent, max_depth, max(nuts_summary[, "Rhat"]),
            max(summary(nuts)$summary[, "Rhat"], na.rm = TRUE)))
for (w in unique(nuts_warnings)) cat("NUTS warning:", w, "\n")
for (w in unique(advi_warnings)) cat("ADVI warning:", w, "\n")

if (!is.null(opts$json)) {
    last <- D + 1
    out <- list(
        variant = variant, seed = seed, prior_sd = prior_sd, a0 = a0, b0 = b0,
        rows = N, groups = G, design_rank = rank,
        features = features,
        nuts_mean = unname(nuts_mean[fixed]), nuts_sd = unname(nuts_sd[fixed]),
        advi_mean = unname(advi_mean[fixed]), advi_sd = unname(advi_sd[fixed]),
        hyper = list(name = hyper, nuts_mean = unname(nuts_mean[last]),
                     nuts_sd = unname(nuts_sd[last]), advi_mean = unname(advi_mean[last]),
                     advi_sd = unname(advi_sd[last])),
        nuts_rhat = unname(nuts_summary[, "Rhat"]), nuts_n_eff = unname(nuts_summary[, "n_eff"]),
        nuts_divergent = divergent, nuts_max_treedepth_hits = max_depth,
        nuts_parameterisation = if (nuts_noncentred) "non-centred" else "centred",
        advi_parameterisation = if (advi_noncentred) "non-centred" else "centred",
        nuts_seconds = nuts_seconds, nuts_chain_seconds = unname(chain_seconds), cores = cores,
        advi_seconds = advi$seconds, compile_seconds = compile_seconds,
        compile_cached = cached,
        advi_iterations = if (is.na(advi_iterations)) NULL else advi_iterations,
        advi_converged = converged, advi_eta = advi_eta, advi_last_elbo = advi_elbo,
        identified = if (rank < D) lapply(id, unname) else NULL,
        null_space = if (rank < D) unname(null_space) else NULL,
        warnings = unique(c(nuts_warnings, advi_warnings)))
    write_json(out, opts$json, auto_unbox = TRUE, digits = NA, pretty = TRUE)
}
