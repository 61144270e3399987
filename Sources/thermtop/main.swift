print("thermtop")
