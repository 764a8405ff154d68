#include "app/cli.h"

int main(int argc, char** argv)
{
    return svi::cli::main(argc, argv);
}
