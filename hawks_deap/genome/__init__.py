"""The genome: what one individual of HAWKS is and how a random one is drawn.

- `genotype`: `Cluster` (one gene: a Gaussian's mean, rotation and scales, with content
  keys), `Genotype` (the DEAP individual: a list of genes), `Layout` (N, K, D, sizes and
  the common random numbers of each slot), the fitness classes and `Evaluation`;
- `initialization`: cluster sizes, Haar rotations, random genes and genotypes;
- `products`: the genes' small matrix products.
"""

from hawks_deap.genome.genotype import (
    Cluster,
    Evaluation,
    Genotype,
    IndexFitness,
    Layout,
    MultiObjectiveFitness,
    RecordFitness,
    VersusFitness,
    clone,
    genotype_equal,
)

__all__ = ["Cluster", "Evaluation", "Genotype", "IndexFitness", "Layout",
           "MultiObjectiveFitness", "RecordFitness", "VersusFitness", "clone", "genotype_equal"]
